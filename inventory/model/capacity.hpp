#pragma once
// GPU capacity over a period, from the node history (node_versions): how many GPUs were installed
// and powered on, and the GPU-hours spent in each state, grouped by what a capacity planner asks
// about (GPU model, owned or rented, site, project, ...). Shared by GET /api/v1/capacity, its CSV
// and the cost report, which prices these hours.
//
// What counts:
// - A node counts while it is in service (not retired) and its hardware summary names GPUs; its
//   GPUs count gpu_count times.
// - The states of a GPU-hour are exclusive, in this order: "maintenance" (the node's flag),
//   "failed" (a *_failed lifecycle state), then its power state: "on", "off", and "unknown" (the
//   BMC unreachable, or the node powering on or off).
// - gpu_hours_powered_on counts every hour the node's power was on, whatever its other state
//   (a node in maintenance that is on still draws power and is paid for).
// - The history records a change when the poller (or the cloud sync) saw it, so every figure is
//   exact to within one poll interval of the node.
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/util/time.hpp"

namespace ironhold {

// The columns a report may be grouped by, as named in ?group_by=.
enum class CapacityDimension { gpu_model, source, site, project, provider, model };
std::optional<CapacityDimension> capacity_dimension(std::string_view name);
std::string_view to_string(CapacityDimension d);

// The states a GPU-hour is in (exclusive; see above).
inline constexpr const char* kCapacityStates[] = {"on", "off", "unknown", "maintenance", "failed"};

// A report's period [from, to), from ?from=&to=: RFC 3339 times, from before to, at most three
// years apart. `to` defaults to now (the next whole hour when whole hours are asked for), `from`
// to `default_span` before `to`. Whole hours are for reports over hourly rows (energy, prices).
enum class PeriodPrecision { second, whole_hour };
struct ReportPeriod {
  SystemTime from, to;
};
ReportPeriod parse_period(const std::optional<std::string>& from,
                          const std::optional<std::string>& to, std::chrono::hours default_span,
                          PeriodPrecision precision, SystemTime now);

struct CapacityQuery {
  SystemTime from, to;
  std::chrono::seconds step{86400};  // the series' bucket: 1 h, 1 day or 7 days
  std::string step_name = "day";
  std::vector<CapacityDimension> group_by;
};

// The query from ?from=&to=&step=&group_by= (to: now; from: 7 days before to; step: hour up to 2
// days, day up to 120 days, else week). Throws invalid or unprocessable naming the parameter.
CapacityQuery parse_capacity_query(const std::optional<std::string>& from,
                                   const std::optional<std::string>& to,
                                   const std::optional<std::string>& step,
                                   const std::optional<std::string>& group_by, SystemTime now);

// GPU-hours per state (kCapacityStates order) and powered on.
struct GpuHours {
  double by_state[5] = {0, 0, 0, 0, 0};
  double powered_on = 0;
  double installed() const;
  GpuHours& operator+=(const GpuHours& other);
};

struct CapacityGroup {
  // The group's value of each grouped dimension (null: none recorded, e.g. a node without a site).
  std::map<CapacityDimension, std::optional<std::string>> key;
  long long gpus_installed = 0;   // at the period's end (or now, when it ends later)
  long long gpus_powered_on = 0;  // of those, on a node powered on then
  GpuHours hours;
  std::vector<GpuHours> series;  // one per bucket of the query's step
};

struct CapacityReport {
  CapacityQuery query;
  std::vector<SystemTime> buckets;  // each bucket's start
  std::vector<CapacityGroup> groups;
  CapacityGroup totals;
};

nlohmann::json to_json(const CapacityReport& report);
// The GPU-hours of `hours` as JSON fields, with utilisation (powered on / installed).
nlohmann::json gpu_hours_json(const GpuHours& hours);
// The report's table, one row per group (the console's table and the CSV export).
std::vector<std::string> capacity_csv_header(const CapacityReport& report);
std::vector<std::vector<std::string>> capacity_csv_rows(const CapacityReport& report);

}  // namespace ironhold

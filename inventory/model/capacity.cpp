#include "inventory/model/capacity.hpp"

#include <cmath>
#include <cstdio>

#include "inventory/error.hpp"

namespace ironhold {
namespace capacity_model {

using nlohmann::json;

constexpr std::pair<CapacityDimension, std::string_view> kDimensionNames[] = {
    {CapacityDimension::gpu_model, "gpu_model"}, {CapacityDimension::source, "source"},
    {CapacityDimension::site, "site"},           {CapacityDimension::project, "project"},
    {CapacityDimension::provider, "provider"},   {CapacityDimension::model, "model"}};

// The most buckets a series may have: a year of days, or 60 days of hours, and no more.
constexpr long long kMaxBuckets = 1500;
// The longest period a report covers.
constexpr auto kMaxSpan = std::chrono::hours(24 * 366 * 3);

std::string three_decimals(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", std::abs(v) < 0.0005 ? 0.0 : v);
  return text;
}

double rounded(double v) {
  return std::round(v * 1000.0) / 1000.0;
}

SystemTime period_end(const std::string& text, const char* name, PeriodPrecision precision) {
  const auto t = parse_rfc3339(text);
  if (!t)
    throw invalid(
        std::string("\"") + name + "\" must be an RFC 3339 time such as 2026-11-01T00:00:00Z",
        name);
  if (precision == PeriodPrecision::whole_hour) {
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(t->time_since_epoch());
    if (us % std::chrono::hours(1) != std::chrono::microseconds(0))
      throw unprocessable(std::string("\"") + name +
                              "\" must be a whole hour (UTC): energy and prices are kept per hour",
                          name);
  }
  return std::chrono::time_point_cast<std::chrono::seconds>(*t);
}

}  // namespace capacity_model

using namespace capacity_model;

std::optional<CapacityDimension> capacity_dimension(std::string_view name) {
  for (const auto& [d, n] : kDimensionNames)
    if (n == name) return d;
  return std::nullopt;
}

std::string_view to_string(CapacityDimension d) {
  for (const auto& [dimension, n] : kDimensionNames)
    if (dimension == d) return n;
  return "?";
}

ReportPeriod parse_period(const std::optional<std::string>& from,
                          const std::optional<std::string>& to, std::chrono::hours default_span,
                          PeriodPrecision precision, SystemTime now) {
  ReportPeriod p;
  p.to = to ? period_end(*to, "to", precision)
         : precision == PeriodPrecision::whole_hour
             ? std::chrono::ceil<std::chrono::hours>(now)
             : std::chrono::time_point_cast<std::chrono::seconds>(now);
  p.from = from ? period_end(*from, "from", precision) : p.to - default_span;
  if (p.from >= p.to) throw unprocessable("\"from\" must be before \"to\"", "from");
  if (p.to - p.from > kMaxSpan)
    throw unprocessable("a report covers at most three years; ask for a shorter period", "from");
  return p;
}

CapacityQuery parse_capacity_query(const std::optional<std::string>& from,
                                   const std::optional<std::string>& to,
                                   const std::optional<std::string>& step,
                                   const std::optional<std::string>& group_by, SystemTime now) {
  CapacityQuery q;
  const auto period =
      parse_period(from, to, std::chrono::hours(24 * 7), PeriodPrecision::second, now);
  q.from = period.from;
  q.to = period.to;
  const auto span = q.to - q.from;
  const std::string name = step.value_or(span <= std::chrono::hours(48)         ? "hour"
                                         : span <= std::chrono::hours(24 * 120) ? "day"
                                                                                : "week");
  if (name == "hour")
    q.step = std::chrono::hours(1);
  else if (name == "day")
    q.step = std::chrono::hours(24);
  else if (name == "week")
    q.step = std::chrono::hours(24 * 7);
  else
    throw invalid("\"step\" must be hour, day or week", "step");
  q.step_name = name;
  const long long buckets = (span + q.step - std::chrono::seconds(1)) / q.step;
  if (buckets > kMaxBuckets)
    throw unprocessable("the period holds " + std::to_string(buckets) + " " + name +
                            "s; a series has at most " + std::to_string(kMaxBuckets) +
                            " buckets: ask for a longer step",
                        "step");
  if (group_by && !group_by->empty()) {
    std::string_view rest = *group_by;
    while (true) {
      const auto comma = rest.find(',');
      const std::string_view word = rest.substr(0, comma);
      const auto d = capacity_dimension(word);
      if (!d)
        throw invalid(
            "\"group_by\" takes gpu_model, source, site, project, provider and model, "
            "separated by commas (\"" +
                std::string(word) + "\" is none of them)",
            "group_by");
      for (auto seen : q.group_by)
        if (seen == *d)
          throw invalid("\"group_by\" names " + std::string(word) + " twice", "group_by");
      q.group_by.push_back(*d);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return q;
}

double GpuHours::installed() const {
  double sum = 0;
  for (double h : by_state) sum += h;
  return sum;
}

GpuHours& GpuHours::operator+=(const GpuHours& other) {
  for (int i = 0; i < 5; ++i) by_state[i] += other.by_state[i];
  powered_on += other.powered_on;
  return *this;
}

json gpu_hours_json(const GpuHours& hours) {
  const double installed = hours.installed();
  json out = {
      {"gpu_hours_installed", rounded(installed)},
      {"gpu_hours_powered_on", rounded(hours.powered_on)},
      {"utilisation", installed > 0 ? json(rounded(hours.powered_on / installed)) : json(nullptr)}};
  json states = json::object();
  for (int i = 0; i < 5; ++i) states[kCapacityStates[i]] = rounded(hours.by_state[i]);
  out["gpu_hours_by_state"] = std::move(states);
  out["gpu_hours_maintenance"] = rounded(hours.by_state[3]);
  out["gpu_hours_failed"] = rounded(hours.by_state[4]);
  return out;
}

namespace capacity_model {

json group_json(const CapacityReport& report, const CapacityGroup& g, bool with_key) {
  json out = gpu_hours_json(g.hours);
  out["gpus_installed"] = g.gpus_installed;
  out["gpus_powered_on"] = g.gpus_powered_on;
  if (with_key) {
    json key = json::object();
    for (auto d : report.query.group_by) {
      const auto it = g.key.find(d);
      key[std::string(to_string(d))] =
          it != g.key.end() && it->second ? json(*it->second) : json(nullptr);
    }
    out["key"] = std::move(key);
  }
  json series = json::array();
  for (std::size_t i = 0; i < g.series.size() && i < report.buckets.size(); ++i) {
    json point = {{"start", format_rfc3339(report.buckets[i])}};
    for (int s = 0; s < 5; ++s) point[kCapacityStates[s]] = rounded(g.series[i].by_state[s]);
    point["powered_on"] = rounded(g.series[i].powered_on);
    series.push_back(std::move(point));
  }
  out["series"] = std::move(series);
  return out;
}

}  // namespace capacity_model

json to_json(const CapacityReport& report) {
  json dims = json::array();
  for (auto d : report.query.group_by) dims.push_back(std::string(to_string(d)));
  json groups = json::array();
  for (const auto& g : report.groups) groups.push_back(group_json(report, g, true));
  return {{"from", format_rfc3339(report.query.from)},
          {"to", format_rfc3339(report.query.to)},
          {"step", report.query.step_name},
          {"group_by", std::move(dims)},
          {"states", kCapacityStates},
          {"totals", group_json(report, report.totals, false)},
          {"groups", std::move(groups)}};
}

std::vector<std::string> capacity_csv_header(const CapacityReport& report) {
  std::vector<std::string> header = {"from", "to"};
  for (auto d : report.query.group_by) header.emplace_back(to_string(d));
  for (const char* name : {"gpus_installed", "gpus_powered_on", "gpu_hours_installed",
                           "gpu_hours_powered_on", "utilisation"})
    header.emplace_back(name);
  for (const char* state : kCapacityStates) header.push_back(std::string("gpu_hours_") + state);
  return header;
}

std::vector<std::vector<std::string>> capacity_csv_rows(const CapacityReport& report) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : report.groups) {
    std::vector<std::string> row = {format_rfc3339(report.query.from),
                                    format_rfc3339(report.query.to)};
    for (auto d : report.query.group_by) {
      const auto it = g.key.find(d);
      row.push_back(it != g.key.end() && it->second ? *it->second : "");
    }
    const double installed = g.hours.installed();
    row.push_back(std::to_string(g.gpus_installed));
    row.push_back(std::to_string(g.gpus_powered_on));
    row.push_back(three_decimals(installed));
    row.push_back(three_decimals(g.hours.powered_on));
    row.push_back(installed > 0 ? three_decimals(g.hours.powered_on / installed) : "");
    for (double h : g.hours.by_state) row.push_back(three_decimals(h));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace ironhold

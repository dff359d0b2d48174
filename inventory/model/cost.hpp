#pragma once
// The cost of GPU capacity over a period, owned against rented, from the node history, the hourly
// energy of owned servers and the prices (inventory/model/prices.hpp). Every amount is a line
// of the report's inputs: a quantity (hours or kWh) times a rate (a price in force then), so an
// auditor can recompute each figure from the lines and the prices.
//
// - Capital: each hour an owned GPU server is in service, within depreciation_months of its
//   enrolment, costs purchase_price / (depreciation_months * 730.5 h).
// - Hosting: each hour in service costs hosting_per_month / 730.5 h.
// - Energy: the kWh its BMC's input power readings add up to (node_energy_hourly), at the price
//   per kWh of its site then (the site's own, else "*"). A server with no reading at all in the
//   period is estimated at its model's rated_watts for every hour it was powered on, and the
//   report says so ("estimated").
// - Rental: each hour a cloud instance was powered on (running), at its instance type's price
//   per hour in its provider and region (the region's own, else "*").
// - Cost per GPU-hour used: a group's total over its GPU-hours powered on (those a price was in
//   force for). Break-even
//   utilisation: the share of hours an owned GPU must be busy for its cost per used GPU-hour to
//   equal the rented one: (capital + hosting per installed GPU-hour) / (rented per used GPU-hour
//   - energy per used GPU-hour).
// An hour with no price in force is not costed; the report lists it under missing_prices.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/model/capacity.hpp"
#include "inventory/model/prices.hpp"

namespace ironhold {

struct CostQuery {
  SystemTime from, to;  // whole hours
  std::vector<CapacityDimension> group_by;
  bool with_inputs = true;  // the lines in the JSON (the CSV is the lines)
};

// ?from=&to=&group_by=&inputs= (to: the next whole hour, so this one counts so far; from: 30 days
// before; group_by: gpu_model). Throws invalid or unprocessable naming the parameter.
CostQuery parse_cost_query(const std::optional<std::string>& from,
                           const std::optional<std::string>& to,
                           const std::optional<std::string>& group_by,
                           const std::optional<std::string>& inputs, SystemTime now);

// One node version inside the period: what it was, from when to when.
struct CostVersion {
  long long version_id = 0;
  std::string node_id, node_name;
  bool owned = true;
  std::optional<std::string> model, site, provider, region, gpu_model, project;
  double gpus = 0;
  bool powered_on = false;
  SystemTime from, to;  // clipped to the period (and to now)
  SystemTime enrolled;  // the node's created_at: when its depreciation starts
};

// The kWh measured for a version's node between two energy price changes (or the period's ends).
struct MeasuredEnergy {
  long long version_id = 0;
  SystemTime from, to;
  double kwh = 0;
};

struct CostLine {
  std::string node_id, node_name;
  std::string kind;  // "capital", "hosting", "energy", "rental"
  SystemTime from, to;
  double quantity = 0;
  std::string unit;  // "h" or "kWh"
  double rate = 0;
  long long price_id = 0;
  std::string price_kind;  // "server", "energy", "instance"
  double amount = 0;
  bool estimated = false;  // energy from rated_watts
  std::size_t group = 0;   // index into CostReport::groups
};

// GPU-hours "priced" are those a price was in force for: the cost per GPU-hour is over them
// alone, so that a server or instance type without a price does not make the others look cheap.
struct OwnedCost {
  double gpu_hours_installed = 0, gpu_hours_used = 0;
  double gpu_hours_installed_priced = 0, gpu_hours_used_priced = 0;
  double capital = 0, hosting = 0, energy = 0;
  double energy_kwh_measured = 0, energy_kwh_estimated = 0;
  double total() const { return capital + hosting + energy; }
};

struct RentedCost {
  double gpu_hours_used = 0, gpu_hours_used_priced = 0;
  double rental = 0;
};

struct CostGroup {
  std::map<CapacityDimension, std::optional<std::string>> key;
  OwnedCost owned;
  RentedCost rented;
};

struct MissingPrice {
  std::string kind;  // "server", "energy", "instance"
  std::string what;  // the model, the site, or "provider region instance_type"
  double hours = 0;  // node-hours left uncosted
  double kwh = 0;    // measured or estimated energy left uncosted
};

struct CostReport {
  CostQuery query;
  std::optional<std::string> currency;
  std::vector<CostGroup> groups;
  CostGroup totals;
  std::vector<CostLine> lines;
  std::vector<MissingPrice> missing;
};

// Prices the versions (and the measured energy) over the query's period.
CostReport compute_cost(const CostQuery& query, const PriceList& prices,
                        const std::vector<CostVersion>& versions,
                        const std::vector<MeasuredEnergy>& energy);

// Every energy price's effective time, sorted and unique: the boundaries the measured energy is
// summed between (a site's price is constant from one to the next).
std::vector<SystemTime> energy_price_boundaries(const PriceList& prices);

nlohmann::json to_json(const CostReport& report);
std::vector<std::string> cost_csv_header(const CostReport& report);
std::vector<std::vector<std::string>> cost_csv_rows(const CostReport& report);

}  // namespace ironhold

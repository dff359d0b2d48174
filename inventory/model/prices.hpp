#pragma once
// Prices as data (migration 0033): what an owned server model costs to own and host, energy per
// kWh per site, and a cloud instance type's hourly price per provider and region. Each holds from
// its effective_from (a whole hour) until the next price for the same key; all share one
// currency. The cost report (inventory/model/cost.hpp) prices GPU-hours with them.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/util/time.hpp"

namespace ironhold {

enum class PriceKind { server, energy, instance };
std::string_view to_string(PriceKind kind);                  // "server", "energy", "instance"
std::optional<PriceKind> price_kind(std::string_view name);  // also the plural route names

struct PriceCommon {
  long long id = 0;
  SystemTime effective_from;
  std::string currency;  // ISO 4217, upper case
  std::optional<std::string> created_by;
  std::string created_at;
};

struct ServerPrice : PriceCommon {
  std::string model;  // the owned server's model as its inventory reports it
  double purchase_price = 0;
  int depreciation_months = 36;
  double hosting_per_month = 0;
  double rated_watts = 0;
};

struct EnergyPrice : PriceCommon {
  std::string site;  // "*": every site without a price of its own
  double per_kwh = 0;
};

struct InstancePrice : PriceCommon {
  std::string provider, region, instance_type;  // region "*": every region without its own
  double per_hour = 0;
};

struct PriceList {
  std::optional<std::string> currency;  // of every price; none before the first
  std::vector<ServerPrice> servers;
  std::vector<EnergyPrice> energy;
  std::vector<InstancePrice> instances;
};

// A POST body of each kind, checked: unknown keys, missing fields, wrong types, negative or
// absurd amounts and an effective_from that is not a whole hour are refused naming the field.
ServerPrice parse_server_price(const nlohmann::json& body);
EnergyPrice parse_energy_price(const nlohmann::json& body);
InstancePrice parse_instance_price(const nlohmann::json& body);

nlohmann::json to_json(const ServerPrice& p);
nlohmann::json to_json(const EnergyPrice& p);
nlohmann::json to_json(const InstancePrice& p);
nlohmann::json to_json(const PriceList& prices);

// A month, for monthly prices: a twelfth of a year of 365.25 days (730.5 hours).
inline constexpr double kHoursPerMonth = 365.25 * 24 / 12;

}  // namespace ironhold

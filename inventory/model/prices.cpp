#include "inventory/model/prices.hpp"

#include <algorithm>
#include <cmath>

#include "inventory/error.hpp"
#include "inventory/model/json_fields.hpp"

namespace ironhold {
namespace price_fields {

using nlohmann::json;

double price_amount(const json& body, const char* field, double max, bool positive = false) {
  const auto it = body.find(field);
  if (it == body.end() || it->is_null())
    throw invalid(std::string("\"") + field + "\" is required", field);
  if (!it->is_number()) throw wrong_type(field, "a number", *it);
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0 || (positive && v == 0) || v >= max)
    throw unprocessable(std::string("\"") + field + "\" must be " +
                            (positive ? "above 0" : "0 or more") + " and below " +
                            std::to_string(static_cast<long long>(max)),
                        field);
  return v;
}

std::string price_text(const json& body, const char* field, std::size_t max) {
  const std::string v = required_string(body, field);
  if (v.empty() || v.size() > max)
    throw unprocessable(
        std::string("\"") + field + "\" must have 1 to " + std::to_string(max) + " characters",
        field);
  return v;
}

void price_common(const json& body, PriceCommon& p) {
  const std::string when = required_string(body, "effective_from");
  const auto t = parse_rfc3339(when);
  if (!t)
    throw invalid("\"effective_from\" must be an RFC 3339 time such as 2026-01-01T00:00:00Z",
                  "effective_from");
  const auto since_epoch =
      std::chrono::duration_cast<std::chrono::microseconds>(t->time_since_epoch());
  if (since_epoch % std::chrono::hours(1) != std::chrono::microseconds(0))
    throw unprocessable(
        "\"effective_from\" must be a whole hour (UTC): costs are priced hour by hour",
        "effective_from");
  p.effective_from = *t;
  p.currency = required_string(body, "currency");
  if (p.currency.size() != 3 || !std::all_of(p.currency.begin(), p.currency.end(),
                                             [](char c) { return c >= 'A' && c <= 'Z'; }))
    throw unprocessable("\"currency\" must be an ISO 4217 code in capitals, such as USD or EUR",
                        "currency");
}

json common_json(const PriceCommon& p) {
  return {{"id", p.id},
          {"effective_from", format_rfc3339(p.effective_from)},
          {"currency", p.currency},
          {"created_by", p.created_by ? json(*p.created_by) : json(nullptr)},
          {"created_at", p.created_at}};
}

}  // namespace price_fields

using namespace price_fields;

std::string_view to_string(PriceKind kind) {
  switch (kind) {
    case PriceKind::server:
      return "server";
    case PriceKind::energy:
      return "energy";
    case PriceKind::instance:
      return "instance";
  }
  return "?";
}

std::optional<PriceKind> price_kind(std::string_view name) {
  if (name == "server" || name == "servers") return PriceKind::server;
  if (name == "energy") return PriceKind::energy;
  if (name == "instance" || name == "instances") return PriceKind::instance;
  return std::nullopt;
}

ServerPrice parse_server_price(const json& body) {
  if (!body.is_object()) throw invalid("the body must be a JSON object");
  reject_unknown_keys(body,
                      {"model", "effective_from", "currency", "purchase_price",
                       "depreciation_months", "hosting_per_month", "rated_watts"},
                      "", ErrorKind::invalid);
  ServerPrice p;
  p.model = price_text(body, "model", 200);
  price_common(body, p);
  p.purchase_price = price_amount(body, "purchase_price", 1e12);
  const auto months = body.find("depreciation_months");
  if (months == body.end() || months->is_null())
    throw invalid("\"depreciation_months\" is required", "depreciation_months");
  if (!months->is_number_integer())
    throw wrong_type("depreciation_months", "a whole number of months", *months);
  const auto m = months->get<long long>();
  if (m < 1 || m > 240)
    throw unprocessable("\"depreciation_months\" must be 1 to 240", "depreciation_months");
  p.depreciation_months = static_cast<int>(m);
  p.hosting_per_month = price_amount(body, "hosting_per_month", 1e12);
  p.rated_watts = price_amount(body, "rated_watts", 1e6, true);
  return p;
}

EnergyPrice parse_energy_price(const json& body) {
  if (!body.is_object()) throw invalid("the body must be a JSON object");
  reject_unknown_keys(body, {"site", "effective_from", "currency", "per_kwh"}, "",
                      ErrorKind::invalid);
  EnergyPrice p;
  p.site = price_text(body, "site", 200);
  price_common(body, p);
  p.per_kwh = price_amount(body, "per_kwh", 1e6);
  return p;
}

InstancePrice parse_instance_price(const json& body) {
  if (!body.is_object()) throw invalid("the body must be a JSON object");
  reject_unknown_keys(
      body, {"provider", "region", "instance_type", "effective_from", "currency", "per_hour"}, "",
      ErrorKind::invalid);
  InstancePrice p;
  p.provider = price_text(body, "provider", 50);
  p.region = body.contains("region") && !body["region"].is_null() ? price_text(body, "region", 100)
                                                                  : std::string("*");
  p.instance_type = price_text(body, "instance_type", 200);
  price_common(body, p);
  p.per_hour = price_amount(body, "per_hour", 1e9);
  return p;
}

json to_json(const ServerPrice& p) {
  json out = common_json(p);
  out["model"] = p.model;
  out["purchase_price"] = p.purchase_price;
  out["depreciation_months"] = p.depreciation_months;
  out["hosting_per_month"] = p.hosting_per_month;
  out["rated_watts"] = p.rated_watts;
  return out;
}

json to_json(const EnergyPrice& p) {
  json out = common_json(p);
  out["site"] = p.site;
  out["per_kwh"] = p.per_kwh;
  return out;
}

json to_json(const InstancePrice& p) {
  json out = common_json(p);
  out["provider"] = p.provider;
  out["region"] = p.region;
  out["instance_type"] = p.instance_type;
  out["per_hour"] = p.per_hour;
  return out;
}

json to_json(const PriceList& prices) {
  json servers = json::array(), energy = json::array(), instances = json::array();
  for (const auto& p : prices.servers) servers.push_back(to_json(p));
  for (const auto& p : prices.energy) energy.push_back(to_json(p));
  for (const auto& p : prices.instances) instances.push_back(to_json(p));
  return {{"currency", prices.currency ? json(*prices.currency) : json(nullptr)},
          {"servers", std::move(servers)},
          {"energy", std::move(energy)},
          {"instances", std::move(instances)}};
}

}  // namespace ironhold

#include "inventory/db/node_rows.hpp"

namespace ironhold::db {
namespace {

std::optional<std::string> opt_text(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return f.as<std::string>();
}

template <class E>
E enum_or(const pqxx::field& f, E fallback) {
  return parse_enum<E>(f.c_str()).value_or(fallback);
}

}  // namespace

Node node_from_row(const pqxx::row& r) {
  Node n;
  n.id = r[0].as<std::string>();
  n.name = r[1].as<std::string>();
  n.source = enum_or(r[2], Source::bmc);
  n.driver = r[3].as<std::string>();
  n.endpoint = opt_text(r[4]);
  n.options = nlohmann::json::parse(r[5].c_str(), nullptr, false);
  n.location.site = opt_text(r[6]);
  n.location.rack = opt_text(r[7]);
  if (!r[8].is_null()) n.location.unit = r[8].as<int>();
  n.tags = nlohmann::json::parse(r[9].c_str(), nullptr, false);
  n.manufacturer = opt_text(r[10]);
  n.model = opt_text(r[11]);
  n.serial = opt_text(r[12]);
  n.asset_tag = opt_text(r[13]);
  n.provider_id = opt_text(r[14]);
  n.power_state = enum_or(r[15], PowerState::unknown);
  n.health = enum_or(r[16], Health::unknown);
  if (!r[17].is_null()) n.reachable = r[17].as<bool>();
  n.last_error = opt_text(r[18]);
  n.lifecycle = enum_or(r[19], Lifecycle::enrolled);
  n.maintenance = r[20].as<bool>();
  n.maintenance_reason = opt_text(r[21]);
  n.credentials_set = r[22].as<bool>();
  n.last_seen = opt_text(r[23]);
  n.created_at = opt_text(r[24]);
  n.updated_at = opt_text(r[25]);
  n.retired_at = opt_text(r[26]);
  n.hardware = nlohmann::json::parse(r[27].c_str(), nullptr, false);
  n.identity = nlohmann::json::parse(r[28].c_str(), nullptr, false);
  n.last_error_message = opt_text(r[29]);
  n.tls_fingerprint = opt_text(r[30]);
  n.parent_id = opt_text(r[31]);
  n.system_id = opt_text(r[32]);
  n.last_inspected = opt_text(r[33]);
  n.cloud_account_id = opt_text(r[34]);
  return n;
}

}  // namespace ironhold::db

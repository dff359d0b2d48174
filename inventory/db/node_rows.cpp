#include "inventory/db/node_rows.hpp"

namespace ironhold::db {
namespace {

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
  n.endpoint = optional_text(r[4]);
  n.options = nlohmann::json::parse(r[5].c_str(), nullptr, false);
  n.location.site = optional_text(r[6]);
  n.location.rack = optional_text(r[7]);
  if (!r[8].is_null()) n.location.unit = r[8].as<int>();
  n.tags = nlohmann::json::parse(r[9].c_str(), nullptr, false);
  n.manufacturer = optional_text(r[10]);
  n.model = optional_text(r[11]);
  n.serial = optional_text(r[12]);
  n.asset_tag = optional_text(r[13]);
  n.provider_id = optional_text(r[14]);
  n.power_state = enum_or(r[15], PowerState::unknown);
  n.health = enum_or(r[16], Health::unknown);
  if (!r[17].is_null()) n.reachable = r[17].as<bool>();
  n.last_error = optional_text(r[18]);
  n.lifecycle = enum_or(r[19], Lifecycle::enrolled);
  n.maintenance = r[20].as<bool>();
  n.maintenance_reason = optional_text(r[21]);
  n.credentials_set = r[22].as<bool>();
  n.last_seen = optional_text(r[23]);
  n.created_at = optional_text(r[24]);
  n.updated_at = optional_text(r[25]);
  n.retired_at = optional_text(r[26]);
  n.hardware = nlohmann::json::parse(r[27].c_str(), nullptr, false);
  n.identity = nlohmann::json::parse(r[28].c_str(), nullptr, false);
  n.last_error_message = optional_text(r[29]);
  n.tls_fingerprint = optional_text(r[30]);
  n.parent_id = optional_text(r[31]);
  n.system_id = optional_text(r[32]);
  n.last_inspected = optional_text(r[33]);
  n.cloud_account_id = optional_text(r[34]);
  n.project = r[35].as<std::string>();
  return n;
}

}  // namespace ironhold::db

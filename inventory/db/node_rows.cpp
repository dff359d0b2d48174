#include "inventory/db/node_rows.hpp"

#include "inventory/error.hpp"
#include "inventory/model/json_scan.hpp"
#include "inventory/model/json_text.hpp"

namespace ironhold::db {
namespace {

template <class E>
E enum_or(const pqxx::field& f, E fallback) {
  return parse_enum<E>(f.c_str()).value_or(fallback);
}

// A nullable column: its text, or nothing.
std::optional<std::string_view> text_of(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return std::string_view(f.c_str(), f.size());
}

Error unexpected_timestamp(const pqxx::field& f) {
  return Error(ErrorKind::internal, "PostgreSQL wrote the timestamp " + std::string(f.name()) +
                                        " as \"" + std::string(f.c_str()).substr(0, 40) +
                                        "\", not in the ISO form (DateStyle ISO) Ironhold reads");
}

bool digits(std::string_view s, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

// A UTC timestamp column as rfc3339() writes it ("2026-12-02T05:34:45.378820Z"): the ISO text
// PostgreSQL writes for a timestamp without time zone ("2026-12-02 05:34:45.37882"), with the
// fraction made six digits. Appends nothing and returns false for anything else.
bool append_rfc3339(std::string& out, std::string_view iso) {
  // YYYY-MM-DD HH:MM:SS, then optionally . and 1 to 6 digits (trailing zeros are left out).
  if (iso.size() < 19 || iso.size() == 20 || iso.size() > 26) return false;
  if (iso[4] != '-' || iso[7] != '-' || iso[10] != ' ' || iso[13] != ':' || iso[16] != ':')
    return false;
  if (!digits(iso, 0, 4) || !digits(iso, 5, 7) || !digits(iso, 8, 10) || !digits(iso, 11, 13) ||
      !digits(iso, 14, 16) || !digits(iso, 17, 19))
    return false;
  if (iso.size() > 19 && (iso[19] != '.' || !digits(iso, 20, iso.size()))) return false;
  out.append(iso.data(), 10);
  out += 'T';
  out.append(iso.data() + 11, 8);
  out += '.';
  const std::size_t fraction = iso.size() > 19 ? iso.size() - 20 : 0;
  if (fraction > 0) out.append(iso.data() + 20, fraction);
  out.append(6 - fraction, '0');
  out += 'Z';
  return true;
}

std::optional<std::string> rfc3339_of(const pqxx::field& f) {
  const auto iso = text_of(f);
  if (!iso) return std::nullopt;
  std::string out;
  out.reserve(27);
  if (!append_rfc3339(out, *iso)) throw unexpected_timestamp(f);
  return out;
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
  n.last_seen = rfc3339_of(r[23]);
  n.created_at = rfc3339_of(r[24]);
  n.updated_at = rfc3339_of(r[25]);
  n.retired_at = rfc3339_of(r[26]);
  n.hardware = nlohmann::json::parse(r[27].c_str(), nullptr, false);
  n.identity = nlohmann::json::parse(r[28].c_str(), nullptr, false);
  n.last_error_message = optional_text(r[29]);
  n.tls_fingerprint = optional_text(r[30]);
  n.parent_id = optional_text(r[31]);
  n.system_id = optional_text(r[32]);
  n.last_inspected = rfc3339_of(r[33]);
  n.cloud_account_id = optional_text(r[34]);
  n.project = r[35].as<std::string>();
  if (!r[36].is_null()) n.gpus_expected = r[36].as<int>();
  n.ssh_host_key = optional_text(r[37]);
  return n;
}

void append_row_json(std::string& out, const pqxx::row& r) {
  using json_text::append_compact;
  using json_text::append_key;
  using json_text::append_string;
  const auto field = [&](std::string_view key) {
    out += ',';
    append_key(out, key);
  };
  const auto optional = [&](const pqxx::field& f) {
    if (const auto value = text_of(f))
      append_string(out, *value);
    else
      out += "null";
  };
  const auto text = [&](std::string_view key, int column) {
    field(key);
    optional(r[column]);
  };
  const auto word = [&](std::string_view key, std::string_view value) {
    field(key);
    append_string(out, value);
  };
  const auto boolean = [&](std::string_view key, int column) {
    field(key);
    // libpqxx's text form of a boolean: "t" or "f".
    out += r[column].is_null() ? "null" : (*r[column].c_str() == 't' ? "true" : "false");
  };
  const auto timestamp = [&](std::string_view key, int column) {
    field(key);
    const auto iso = text_of(r[column]);
    if (!iso) {
      out += "null";
      return;
    }
    out += '"';
    if (!append_rfc3339(out, *iso)) throw unexpected_timestamp(r[column]);
    out += '"';
  };
  const auto json_column = [&](std::string_view key, int column) {
    field(key);
    if (const auto value = text_of(r[column]))
      append_compact(out, *value);
    else
      out += "null";
  };
  // The keys in to_json's order (sorted), each value as node_from_row would have read it.
  out += '{';
  append_key(out, "asset_tag");
  optional(r[13]);
  text("cloud_account_id", 34);
  timestamp("created_at", 24);
  boolean("credentials_set", 22);
  word("driver", text_of(r[3]).value_or(""));
  text("endpoint", 4);
  field("gpus_expected");
  out += r[36].is_null() ? std::string("null") : std::to_string(r[36].as<int>());
  field("hardware");
  out += '{';
  const auto hardware = text_of(r[27]);
  const char* separator = "";
  for (const std::string& key : hardware_summary_keys()) {
    out += separator;
    separator = ",";
    append_key(out, key);
    const auto value = hardware ? json_text::member(*hardware, key) : std::nullopt;
    if (value)
      append_compact(out, *value);
    else
      out += "null";
  }
  out += '}';
  word("health", to_string(enum_or(r[16], Health::unknown)));
  word("id", text_of(r[0]).value_or(""));
  json_column("identity", 28);
  text("last_error", 18);
  text("last_error_message", 29);
  timestamp("last_inspected", 33);
  timestamp("last_seen", 23);
  word("lifecycle", to_string(enum_or(r[19], Lifecycle::enrolled)));
  field("location");
  out += '{';
  append_key(out, "rack");
  optional(r[7]);
  text("site", 6);
  field("unit");
  if (r[8].is_null())
    out += "null";
  else
    out += std::to_string(r[8].as<int>());
  out += '}';
  boolean("maintenance", 20);
  text("maintenance_reason", 21);
  text("manufacturer", 10);
  text("model", 11);
  word("name", text_of(r[1]).value_or(""));
  json_column("options", 5);
  text("parent_id", 31);
  word("power_state", to_string(enum_or(r[15], PowerState::unknown)));
  word("project", text_of(r[35]).value_or(""));
  text("provider_id", 14);
  boolean("reachable", 17);
  timestamp("retired_at", 26);
  text("serial", 12);
  word("source", to_string(enum_or(r[2], Source::bmc)));
  text("ssh_host_key", 37);
  text("system_id", 32);
  json_column("tags", 9);
  text("tls_fingerprint", 30);
  timestamp("updated_at", 25);
  field("warnings");
  const auto options = text_of(r[5]);
  const auto tls = options ? json_text::member(*options, "tls") : std::nullopt;
  json_text::append_value(out, node_warnings(tls && *tls == "\"insecure\""));
  out += '}';
}

}  // namespace ironhold::db

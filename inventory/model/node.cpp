#include "inventory/model/node.hpp"

#include "inventory/model/hardware.hpp"
#include "inventory/model/json_text.hpp"

namespace ironhold {
namespace {

nlohmann::json optional_json(const std::optional<std::string>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// Every field of the summary is present, null until the first inspection says otherwise.
nlohmann::json hardware_json(const nlohmann::json& stored) {
  nlohmann::json out = to_json(HardwareSummary{});
  for (auto& [key, value] : out.items()) value = stored.contains(key) ? stored[key] : nullptr;
  return out;
}

bool tls_insecure(const Node& n) {
  return n.options.is_object() && n.options.value("tls", "") == "insecure";
}

}  // namespace

nlohmann::json to_json(const Node& n) {
  nlohmann::json location = {
      {"site", optional_json(n.location.site)},
      {"rack", optional_json(n.location.rack)},
      {"unit", n.location.unit ? nlohmann::json(*n.location.unit) : nullptr}};
  return {
      {"id", n.id},
      {"name", n.name},
      {"project", n.project},
      {"source", to_string(n.source)},
      {"driver", n.driver},
      {"endpoint", optional_json(n.endpoint)},
      {"options", n.options},
      {"location", std::move(location)},
      {"tags", n.tags},
      {"manufacturer", optional_json(n.manufacturer)},
      {"model", optional_json(n.model)},
      {"serial", optional_json(n.serial)},
      {"asset_tag", optional_json(n.asset_tag)},
      {"provider_id", optional_json(n.provider_id)},
      {"cloud_account_id", optional_json(n.cloud_account_id)},
      {"power_state", to_string(n.power_state)},
      {"health", to_string(n.health)},
      {"reachable", n.reachable ? nlohmann::json(*n.reachable) : nullptr},
      {"last_error", optional_json(n.last_error)},
      {"last_error_message", optional_json(n.last_error_message)},
      {"hardware", hardware_json(n.hardware)},
      {"identity", n.identity},
      {"tls_fingerprint", optional_json(n.tls_fingerprint)},
      {"ssh_host_key", optional_json(n.ssh_host_key)},
      {"parent_id", optional_json(n.parent_id)},
      {"system_id", optional_json(n.system_id)},
      {"last_inspected", optional_json(n.last_inspected)},
      {"warnings", node_warnings(tls_insecure(n))},
      {"lifecycle", to_string(n.lifecycle)},
      {"maintenance", n.maintenance},
      {"maintenance_reason", optional_json(n.maintenance_reason)},
      {"credentials_set", n.credentials_set},
      {"gpus_expected", n.gpus_expected ? nlohmann::json(*n.gpus_expected) : nullptr},
      {"last_seen", optional_json(n.last_seen)},
      {"created_at", optional_json(n.created_at)},
      {"updated_at", optional_json(n.updated_at)},
      {"retired_at", optional_json(n.retired_at)},
  };
}

void append_json(std::string& out, const Node& n) {
  using json_text::append_key;
  using json_text::append_optional;
  using json_text::append_string;
  using json_text::append_value;
  const auto field = [&](std::string_view key) {
    out += ',';
    append_key(out, key);
  };
  const auto text = [&](std::string_view key, const std::optional<std::string>& v) {
    field(key);
    append_optional(out, v);
  };
  const auto word = [&](std::string_view key, std::string_view v) {
    field(key);
    append_string(out, v);
  };
  const auto boolean = [&](std::string_view key, bool v) {
    field(key);
    out += v ? "true" : "false";
  };
  // In to_json's key order, which is its map's: sorted.
  out += '{';
  append_key(out, "asset_tag");
  append_optional(out, n.asset_tag);
  text("cloud_account_id", n.cloud_account_id);
  text("created_at", n.created_at);
  boolean("credentials_set", n.credentials_set);
  word("driver", n.driver);
  text("endpoint", n.endpoint);
  field("gpus_expected");
  out += n.gpus_expected ? std::to_string(*n.gpus_expected) : "null";
  field("hardware");
  out += '{';
  const char* separator = "";
  for (const std::string& key : hardware_summary_keys()) {
    out += separator;
    separator = ",";
    append_key(out, key);
    const auto it = n.hardware.is_object() ? n.hardware.find(key) : n.hardware.end();
    if (it != n.hardware.end())
      append_value(out, *it);
    else
      out += "null";
  }
  out += '}';
  word("health", to_string(n.health));
  word("id", n.id);
  field("identity");
  append_value(out, n.identity);
  text("last_error", n.last_error);
  text("last_error_message", n.last_error_message);
  text("last_inspected", n.last_inspected);
  text("last_seen", n.last_seen);
  word("lifecycle", to_string(n.lifecycle));
  field("location");
  out += '{';
  append_key(out, "rack");
  append_optional(out, n.location.rack);
  text("site", n.location.site);
  field("unit");
  out += n.location.unit ? std::to_string(*n.location.unit) : "null";
  out += '}';
  boolean("maintenance", n.maintenance);
  text("maintenance_reason", n.maintenance_reason);
  text("manufacturer", n.manufacturer);
  text("model", n.model);
  word("name", n.name);
  field("options");
  append_value(out, n.options);
  text("parent_id", n.parent_id);
  word("power_state", to_string(n.power_state));
  word("project", n.project);
  text("provider_id", n.provider_id);
  field("reachable");
  out += n.reachable ? (*n.reachable ? "true" : "false") : "null";
  text("retired_at", n.retired_at);
  text("serial", n.serial);
  word("source", to_string(n.source));
  text("ssh_host_key", n.ssh_host_key);
  text("system_id", n.system_id);
  field("tags");
  append_value(out, n.tags);
  text("tls_fingerprint", n.tls_fingerprint);
  text("updated_at", n.updated_at);
  field("warnings");
  append_value(out, node_warnings(tls_insecure(n)));
  out += '}';
}

const nlohmann::json& node_warnings(bool insecure_tls) {
  static const nlohmann::json none = nlohmann::json::array();
  static const nlohmann::json insecure =
      nlohmann::json::array({{{"code", "tls_insecure"},
                              {"message",
                               "TLS certificate verification is off for this BMC (tls: insecure); "
                               "anyone on the path can read its credentials"}}});
  return insecure_tls ? insecure : none;
}

const std::vector<std::string>& hardware_summary_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    // The tree outlives the loop (items() of a temporary would not).
    const nlohmann::json summary = to_json(HardwareSummary{});
    for (const auto& [key, unused] : summary.items()) out.push_back(key);
    return out;
  }();
  return keys;
}

bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!std::isxdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

}  // namespace ironhold

#include "inventory/model/node.hpp"

#include "inventory/model/hardware.hpp"

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

// Conditions an operator should see on the node page and in lists.
nlohmann::json warnings(const Node& n) {
  nlohmann::json out = nlohmann::json::array();
  if (n.options.is_object() && n.options.value("tls", "") == "insecure")
    out.push_back({{"code", "tls_insecure"},
                   {"message",
                    "TLS certificate verification is off for this BMC (tls: insecure); "
                    "anyone on the path can read its credentials"}});
  return out;
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
      {"parent_id", optional_json(n.parent_id)},
      {"system_id", optional_json(n.system_id)},
      {"last_inspected", optional_json(n.last_inspected)},
      {"warnings", warnings(n)},
      {"lifecycle", to_string(n.lifecycle)},
      {"maintenance", n.maintenance},
      {"maintenance_reason", optional_json(n.maintenance_reason)},
      {"credentials_set", n.credentials_set},
      {"last_seen", optional_json(n.last_seen)},
      {"created_at", optional_json(n.created_at)},
      {"updated_at", optional_json(n.updated_at)},
      {"retired_at", optional_json(n.retired_at)},
  };
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

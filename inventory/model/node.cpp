#include "inventory/model/node.hpp"

namespace ironhold {
namespace {

nlohmann::json optional_json(const std::optional<std::string>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json to_json(const Node& n) {
  nlohmann::json location = {{"site", optional_json(n.location.site)},
                             {"rack", optional_json(n.location.rack)},
                             {"unit", n.location.unit ? nlohmann::json(*n.location.unit) : nullptr}};
  return {
      {"id", n.id},
      {"name", n.name},
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
      {"power_state", to_string(n.power_state)},
      {"health", to_string(n.health)},
      {"reachable", n.reachable ? nlohmann::json(*n.reachable) : nullptr},
      {"last_error", optional_json(n.last_error)},
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

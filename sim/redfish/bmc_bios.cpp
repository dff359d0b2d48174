// A System's BIOS: the Bios resource the mockup holds, and the settings object its
// @Redfish.Settings names, where a PATCH of Attributes waits for the System's next reset (or
// applies at once with ApplyTime Immediate, where the Bios lists it). An attribute the Bios does
// not have, or a value of another JSON type, is refused as BMCs refuse it. A settings object the
// mockup names but does not hold (the Dell capture's Bios/Settings) is made, empty.
#include <algorithm>

#include "inventory/util/time.hpp"
#include "sim/redfish/bmc_state.hpp"
#include "sim/redfish/errors.hpp"
#include "sim/redfish/mockup.hpp"

namespace ironhold::sim::redfish {

using nlohmann::json;

namespace {

bool same_type(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) return true;
  return a.type() == b.type();
}

}  // namespace

void BmcState::register_bios_settings(const std::string& system_path) {
  const std::string bios_path = link_path(documents_.at(system_path).json, "Bios");
  const auto bios = documents_.find(bios_path);
  if (bios_path.empty() || bios == documents_.end() || !bios->second.json.is_object()) return;
  const json& doc = bios->second.json;
  const auto settings = doc.find("@Redfish.Settings");
  if (settings == doc.end() || !settings->is_object()) return;
  const std::string path = link_path(*settings, "SettingsObject");
  if (path.empty() || path == bios_path) return;
  bios_settings_[path] = {bios_path, system_path};
  Document& pending = documents_[path];
  if (!pending.json.is_object()) {
    pending.is_json = true;
    pending.content_type = "application/json";
    pending.json = {{"@odata.id", path},
                    {"@odata.type", doc.value("@odata.type", "#Bios.v1_0_0.Bios")},
                    {"Id", path.substr(path.rfind('/') + 1)},
                    {"Name", "BIOS Configuration Pending Settings"},
                    {"AttributeRegistry", doc.value("AttributeRegistry", json())}};
  }
  if (!pending.json.contains("Attributes") || !pending.json["Attributes"].is_object())
    pending.json["Attributes"] = json::object();
}

Response BmcState::patch_bios_settings(const std::string& path, const json& body) {
  const BiosSettingsObject& owner = bios_settings_.at(path);
  const json& bios = documents_.at(owner.bios_path).json;
  const json current = bios.value("Attributes", json::object());
  const json declared = bios.value("@Redfish.Settings", json::object());
  auto time = settings_apply_time(body, declared);
  if (auto* refused = std::get_if<Response>(&time)) return std::move(*refused);
  const std::string apply_time = std::get<std::string>(time);
  json changes = json::object();
  for (const auto& [key, value] : body.items()) {
    if (key == "@Redfish.SettingsApplyTime") continue;
    if (key != "Attributes") return property_unknown(key);
    if (!value.is_object()) return property_value_type_error(value.dump(), "Attributes");
    for (const auto& [name, setting] : value.items()) {
      const auto it = current.find(name);
      if (it == current.end()) return property_unknown("Attributes/" + name);
      if (!setting.is_primitive() || setting.is_null() ||
          (!it->is_null() && !same_type(*it, setting)))
        return property_value_type_error(setting.dump(), "Attributes/" + name);
      changes[name] = setting;
    }
  }
  json& pending = documents_[path].json["Attributes"];
  for (const auto& [name, value] : changes.items()) pending[name] = value;
  ++counters_.bios_writes;
  if (apply_time == "Immediate") apply_pending_bios(owner.system_path);
  changed();
  return json_response(http::status::ok, documents_[path].json);
}

void BmcState::apply_pending_bios(const std::string& system_path) {
  for (const auto& [path, owner] : bios_settings_) {
    if (owner.system_path != system_path) continue;
    json& pending = documents_[path].json["Attributes"];
    if (!pending.is_object() || pending.empty()) continue;
    json& bios = documents_[owner.bios_path].json;
    json& current = bios["Attributes"];
    for (const auto& [name, value] : pending.items()) current[name] = value;
    pending = json::object();
    // What the BMC says of the last application, as iLO and iDRAC keep it.
    json& settings = bios["@Redfish.Settings"];
    settings["Messages"] = json::array({{{"MessageId", "Base.1.0.Success"}}});
    settings["Time"] = format_rfc3339(std::chrono::system_clock::now());
    ++counters_.bios_applies;
  }
}

}  // namespace ironhold::sim::redfish

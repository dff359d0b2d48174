// A System's @Redfish.Settings object: Boot set there waits for the System's next reset (or acts
// at once with ApplyTime Immediate), as iDRAC 10 and Lenovo XCC take it. A settings object the
// mockup names but does not hold (the Lenovo capture's /Systems/1/Pending) is made, as the
// pending copy of the System it stands for.
#include <algorithm>

#include "sim/redfish/bmc_state.hpp"
#include "sim/redfish/errors.hpp"

namespace ironhold::sim::redfish {

using nlohmann::json;

namespace {

std::string settings_object_path(const json& system) {
  const auto settings = system.find("@Redfish.Settings");
  return settings == system.end() ? std::string() : link_path(*settings, "SettingsObject");
}

}  // namespace

std::variant<std::string, Response> settings_apply_time(const json& body, const json& declared) {
  const std::string key = "@Redfish.SettingsApplyTime";
  const auto asked = body.find(key);
  if (asked == body.end()) return std::string("OnReset");
  const json& value = *asked;
  if (!value.is_object()) return property_value_type_error(value.dump(), key);
  const auto time = value.find("ApplyTime");
  if (time == value.end()) return std::string("OnReset");
  if (!time->is_string()) return property_value_type_error(time->dump(), key + "/ApplyTime");
  const std::string apply_time = time->get<std::string>();
  const json supported = declared.value("SupportedApplyTimes", json::array());
  if ((supported.is_array() && !supported.empty() &&
       std::find(supported.begin(), supported.end(), json(apply_time)) == supported.end()) ||
      (apply_time != "OnReset" && apply_time != "Immediate"))
    return property_value_not_in_list(apply_time, key + "/ApplyTime");
  return apply_time;
}

void BmcState::register_settings_object(const std::string& system_path) {
  const json& system = documents_.at(system_path).json;
  const std::string path = settings_object_path(system);
  if (path.empty() || path == system_path) return;
  settings_objects_[path] = system_path;
  Document& doc = documents_[path];
  if (!doc.json.is_object()) {
    doc.is_json = true;
    doc.content_type = "application/json";
    doc.json = {
        {"@odata.id", path},
        {"@odata.type", system.value("@odata.type", "#ComputerSystem.v1_0_0.ComputerSystem")},
        {"Id", path.substr(path.rfind('/') + 1)},
        {"Name", "Pending settings of " + system.value("Id", system_path)}};
  }
  if (!doc.json.contains("Boot")) doc.json["Boot"] = json::object();
}

void BmcState::apply_settings_fault() {
  if (!faults_.boot_via_settings) return;
  for (const auto& [system_path, machine] : power_) {
    json& system = documents_[system_path].json;
    if (settings_object_path(system).empty())
      system["@Redfish.Settings"] = {{"@odata.type", "#Settings.v1_3_0.Settings"},
                                     {"SettingsObject", {{"@odata.id", system_path + "/Settings"}}},
                                     {"SupportedApplyTimes", json::array({"OnReset"})}};
    register_settings_object(system_path);
  }
}

Response BmcState::patch_settings(const std::string& path, const json& body) {
  const std::string& system_path = settings_objects_.at(path);
  const json& system = documents_.at(system_path).json;
  const json declared = system.value("@Redfish.Settings", json::object());
  auto time = settings_apply_time(body, declared);
  if (auto* refused = std::get_if<Response>(&time)) return std::move(*refused);
  const std::string apply_time = std::get<std::string>(time);
  json changes = json::object();
  for (const auto& [key, value] : body.items()) {
    if (key == "@Redfish.SettingsApplyTime") continue;
    if (key != "Boot") return property_unknown(key);
    if (!value.is_object()) return property_value_type_error(value.dump(), "Boot");
    if (auto refused = check_boot(system.value("Boot", json::object()), value, changes))
      return std::move(*refused);
  }
  json& pending = documents_[path].json["Boot"];
  for (const auto& [name, value] : changes.items()) pending[name] = value;
  if (apply_time == "Immediate") apply_pending_settings(system_path);
  changed();
  return json_response(http::status::ok, documents_[path].json);
}

void BmcState::apply_pending_settings(const std::string& system_path) {
  for (const auto& [path, owner] : settings_objects_) {
    if (owner != system_path) continue;
    json& pending = documents_[path].json["Boot"];
    if (!pending.is_object() || pending.empty()) continue;
    json& boot = documents_[system_path].json["Boot"];
    for (const auto& [name, value] : pending.items()) boot[name] = value;
    pending = json::object();
    ++counters_.boot_overrides;
  }
}

}  // namespace ironhold::sim::redfish

// The pure half of the actions: what to send for a request, given what the BMC allows.
#include <algorithm>
#include <array>
#include <cctype>

#include "bmc/redfish/actions.hpp"

namespace ironhold::bmc::redfish {

using nlohmann::json;

namespace {

bool allows(const std::optional<std::vector<std::string>>& allowed, const std::string& type) {
  return !allowed || std::find(allowed->begin(), allowed->end(), type) != allowed->end();
}

std::string listed(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ", ") + v;
  return out.empty() ? "none" : out;
}

// The first of `preferred` the BMC allows.
std::optional<std::string> first_allowed(const std::optional<std::vector<std::string>>& allowed,
                                         std::initializer_list<const char*> preferred) {
  for (const char* type : preferred)
    if (allows(allowed, type)) return std::string(type);
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<std::string>> allowable_values(const json& action,
                                                         const std::string& parameter) {
  if (!action.is_object()) return std::nullopt;
  const auto it = action.find(parameter + "@Redfish.AllowableValues");
  if (it == action.end() || !it->is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& v : *it)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

std::variant<std::vector<std::string>, DriverError> plan_reset(
    PowerAction action, const std::optional<std::vector<std::string>>& allowed) {
  std::optional<std::string> type;
  switch (action) {
    case PowerAction::on:
      type = first_allowed(allowed, {"On", "ForceOn"});
      break;
    case PowerAction::off:
      type = first_allowed(allowed, {"ForceOff"});
      break;
    case PowerAction::soft_off:
      type = first_allowed(allowed, {"GracefulShutdown"});
      break;
    case PowerAction::reset:
      type = first_allowed(allowed, {"ForceRestart", "GracefulRestart"});
      break;
    case PowerAction::cycle: {
      type = first_allowed(allowed, {"PowerCycle"});
      if (type) break;
      // No PowerCycle: the same effect by hand, off and on again.
      const auto on = first_allowed(allowed, {"On", "ForceOn"});
      if (allows(allowed, "ForceOff") && on) return std::vector<std::string>{"ForceOff", *on};
      break;
    }
  }
  if (type) return std::vector<std::string>{*type};
  return DriverError{DriverErrorCode::unsupported,
                     "power " + std::string(to_string(action)) +
                         ": no matching ResetType allowed by the BMC (allowed: " +
                         listed(allowed.value_or(std::vector<std::string>{})) + ")"};
}

std::string boot_target(BootDevice device) {
  switch (device) {
    case BootDevice::pxe:
      return "Pxe";
    case BootDevice::disk:
      return "Hdd";
    case BootDevice::cd:
      return "Cd";
    case BootDevice::bios:
      return "BiosSetup";
  }
  return "None";
}

json boot_patch(const BootRequest& boot) {
  json settings = {{"BootSourceOverrideTarget", boot_target(boot.device)},
                   {"BootSourceOverrideEnabled", boot.persistent ? "Continuous" : "Once"}};
  if (boot.mode)
    settings["BootSourceOverrideMode"] = *boot.mode == BootMode::uefi ? "UEFI" : "Legacy";
  return json{{"Boot", std::move(settings)}};
}

json boot_patch(const BootRequest& boot, const json& system) {
  json patch = boot_patch(boot);
  if (boot.mode || !system.is_object()) return patch;
  std::string maker = system.value("Manufacturer", json()).is_string()
                          ? system["Manufacturer"].get<std::string>()
                          : std::string();
  std::transform(maker.begin(), maker.end(), maker.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (maker.find("supermicro") == std::string::npos) return patch;
  const auto current = system.find("Boot");
  if (current == system.end() || !current->is_object()) return patch;
  const auto mode = current->find("BootSourceOverrideMode");
  if (mode != current->end() && mode->is_string()) patch["Boot"]["BootSourceOverrideMode"] = *mode;
  return patch;
}

std::optional<SettingsTarget> settings_target(const json& resource) {
  if (!resource.is_object()) return std::nullopt;
  const auto settings = resource.find("@Redfish.Settings");
  if (settings == resource.end() || !settings->is_object()) return std::nullopt;
  const auto object = settings->find("SettingsObject");
  if (object == settings->end() || !object->is_object()) return std::nullopt;
  const auto id = object->find("@odata.id");
  if (id == object->end() || !id->is_string()) return std::nullopt;
  SettingsTarget target;
  target.path = path_of(id->get<std::string>());
  if (target.path.empty()) return std::nullopt;
  if (const auto times = settings->find("SupportedApplyTimes");
      times != settings->end() && times->is_array())
    for (const auto& t : *times)
      if (t.is_string()) target.apply_times.push_back(t.get<std::string>());
  return target;
}

std::variant<json, DriverError> settings_patch(json patch, const SettingsTarget& target) {
  if (target.apply_times.empty()) return patch;
  const std::optional<std::vector<std::string>> allowed = target.apply_times;
  const auto time = first_allowed(allowed, {"OnReset", "Immediate"});
  if (!time)
    return DriverError{DriverErrorCode::unsupported, "the BMC takes Boot only through " +
                                                         target.path + " and applies it only at " +
                                                         listed(target.apply_times) +
                                                         ", not at the next reset"};
  patch["@Redfish.SettingsApplyTime"] = json{{"ApplyTime", *time}};
  return patch;
}

std::optional<json> identify_patch(const json& system, bool on) {
  if (!system.is_object()) return std::nullopt;
  const auto location = system.find("LocationIndicatorActive");
  const auto led = system.find("IndicatorLED");
  const bool has_led = led != system.end() && led->is_string();
  // LocationIndicatorActive replaced IndicatorLED; a null one next to a real IndicatorLED is a
  // service that lists the new property without driving it, so the old one is used then.
  if (location != system.end() && (location->is_boolean() || !has_led))
    return json{{"LocationIndicatorActive", on}};
  if (has_led) return json{{"IndicatorLED", on ? "Lit" : "Off"}};
  return std::nullopt;
}

}  // namespace ironhold::bmc::redfish

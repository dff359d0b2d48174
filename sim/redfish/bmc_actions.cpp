// BmcState's actions: ComputerSystem.Reset (the power state machine), Manager.Reset and the PATCH
// of a System (boot override, identify LED) — each checked against the mockup's AllowableValues
// and answered as a Redfish service would. Firmware updates are in bmc_update.cpp.
#include <algorithm>
#include <cctype>

#include "inventory/util/time.hpp"
#include "sim/redfish/bmc_state.hpp"
#include "sim/redfish/errors.hpp"

namespace ironhold::sim::redfish {

using nlohmann::json;

namespace {

bool allowed(const json& object, const std::string& property, const std::string& value) {
  const auto it = object.find(property + "@Redfish.AllowableValues");
  if (it == object.end() || !it->is_array()) return true;
  return std::find(it->begin(), it->end(), json(value)) != it->end();
}

}  // namespace

Response BmcState::reset(const std::string& system_path, const Request& request) {
  const json body = json::parse(request.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) return malformed_json();
  const std::string action = "ComputerSystem.Reset";
  const auto type_it = body.find("ResetType");
  if (type_it == body.end()) return action_parameter_missing(action, "ResetType");
  if (!type_it->is_string()) return property_value_type_error(type_it->dump(), "ResetType");
  const std::string type = type_it->get<std::string>();
  const json& action_doc = documents_[system_path].json["Actions"][reset_action];
  static const std::vector<std::string> known = {"On",
                                                 "ForceOn",
                                                 "ForceOff",
                                                 "GracefulShutdown",
                                                 "ForceRestart",
                                                 "GracefulRestart",
                                                 "PowerCycle",
                                                 "Nmi",
                                                 "PushPowerButton"};
  bool listed = allowed(action_doc, "ResetType", type);
  // Services that list the values in an ActionInfo (AMI, Supermicro X13) refuse the rest too.
  if (listed && action_doc.contains("@Redfish.ActionInfo") &&
      action_doc["@Redfish.ActionInfo"].is_string()) {
    const auto info =
        documents_.find(resource_path(action_doc["@Redfish.ActionInfo"].get<std::string>()));
    if (info != documents_.end() && info->second.is_json)
      for (const auto& parameter : info->second.json.value("Parameters", json::array()))
        if (parameter.is_object() && parameter.value("Name", "") == "ResetType" &&
            parameter.contains("AllowableValues") && parameter["AllowableValues"].is_array()) {
          const json& values = parameter["AllowableValues"];
          listed = std::find(values.begin(), values.end(), json(type)) != values.end();
        }
  }
  if (!listed || std::find(known.begin(), known.end(), type) == known.end())
    return action_parameter_value_not_in_list(type, "ResetType", action);

  ++counters_.resets[type];
  if (faults_.ignore_resets) {
    changed();
    return no_content();
  }
  auto& machine = power_[system_path];
  const std::string now_state = current_power(machine);
  const bool is_on = now_state == "On" || now_state == "PoweringOn";
  const Clock::duration d = config_.reset_delay;
  std::vector<Step> steps;
  const auto power_on = [&] {
    steps.insert(steps.end(), {{"PoweringOn", d}, {"On", Clock::duration::zero()}});
  };
  const auto power_off = [&] {
    steps.insert(steps.end(), {{"PoweringOff", d}, {"Off", Clock::duration::zero()}});
  };
  if (type == "On" || type == "ForceOn") {
    if (!is_on) power_on();
  } else if (type == "ForceOff" || type == "GracefulShutdown") {
    if (is_on) power_off();
  } else if (type == "ForceRestart" || type == "GracefulRestart" || type == "PowerCycle") {
    if (is_on) steps.push_back({"PoweringOff", d});
    power_on();
  } else if (type == "PushPowerButton") {
    if (is_on)
      power_off();
    else
      power_on();
  }  // Nmi: no power change
  if (!steps.empty()) {
    machine.steps = std::move(steps);
    machine.started = config_.now();
    ++machine.generation;
    if (config_.power_settles) {
      Clock::duration settles{};
      for (const auto& step : machine.steps) settles += step.lasts;
      config_.power_settles({config_.index, system_path,
                             std::chrono::duration_cast<std::chrono::milliseconds>(settles),
                             machine.generation});
    }
    // Like real BMCs, the System says when it was last (re)started: a client's evidence that a
    // reset happened even when it never saw the power go off.
    const bool serial_port = system_path == console_system_;
    if (serial_port && is_on && machine.steps.front().state == "PoweringOff")
      console_.power_off(machine.started);
    if (machine.steps.back().state == "On") {
      documents_[system_path].json["LastResetTime"] =
          format_rfc3339(std::chrono::system_clock::now());
      Clock::duration until_on{};
      for (const auto& step : machine.steps) until_on += step.lasts;
      if (serial_port) console_.boot(machine.started + until_on, boot_device(system_path));
      apply_pending_settings(system_path);
      apply_pending_bios(system_path);
      network_boot_if_asked(system_path, until_on);
      // Firmware staged to activate at the next reset (a BIOS) is what the System now runs.
      for (const auto& [entry, version] : pending_firmware_)
        if (auto doc = documents_.find(entry); doc != documents_.end())
          doc->second.json["Version"] = version;
      pending_firmware_.clear();
    }
  }
  changed();
  return no_content();
}

void BmcState::network_boot_if_asked(const std::string& system_path, Clock::duration until_on) {
  json& system = documents_[system_path].json;
  const auto boot = system.find("Boot");
  if (boot == system.end() || !boot->is_object()) return;
  const std::string enabled = boot->value("BootSourceOverrideEnabled", std::string("Disabled"));
  const std::string target = boot->value("BootSourceOverrideTarget", std::string("None"));
  if (enabled == "Disabled" || (target != "Pxe" && target != "Cd")) return;
  if (enabled == "Once") (*boot)["BootSourceOverrideEnabled"] = "Disabled";
  // A CD boot with nothing in the virtual CD finds nothing to boot (a real one goes on to its
  // disk).
  const std::string media = target == "Cd" ? mounted_image() : std::string();
  if (target == "Cd" && media.empty()) return;
  ++(target == "Cd" ? counters_.media_boots : counters_.network_boots);
  if (!config_.network_boot) return;
  NetworkBoot request;
  request.media_url = media;
  request.bmc = config_.index;
  request.system = system_path;
  request.macs = system_macs(system_path);
  request.powering_on = std::chrono::duration_cast<std::chrono::milliseconds>(until_on);
  request.faults = faults_;
  config_.network_boot(std::move(request));
}

// The MAC addresses of the System's Ethernet interfaces, in the collection's order, in the form
// iPXE's ${net0/mac} has (lower case, colons).
std::vector<std::string> BmcState::system_macs(const std::string& system_path) const {
  std::vector<std::string> macs;
  const auto system = documents_.find(system_path);
  if (system == documents_.end()) return macs;
  const json& link = system->second.json.value("EthernetInterfaces", json::object());
  const auto collection = documents_.find(link.value("@odata.id", std::string()));
  if (collection == documents_.end()) return macs;
  for (const auto& member : collection->second.json.value("Members", json::array())) {
    const auto port = documents_.find(member.value("@odata.id", std::string()));
    if (port == documents_.end()) continue;
    std::string mac = port->second.json.value("PermanentMACAddress", std::string());
    if (mac.empty()) mac = port->second.json.value("MACAddress", std::string());
    if (mac.empty()) continue;
    for (char& c : mac) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    macs.push_back(mac);
  }
  return macs;
}

Response BmcState::manager_reset(const std::string& manager_path, const Request& request) {
  const json body = json::parse(request.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) return malformed_json();
  const std::string action = "Manager.Reset";
  // ResetType is optional for a Manager (the service picks); GracefulRestart is what BMCs do.
  std::string type = "GracefulRestart";
  const auto type_it = body.find("ResetType");
  if (type_it != body.end()) {
    if (!type_it->is_string()) return property_value_type_error(type_it->dump(), "ResetType");
    type = type_it->get<std::string>();
  }
  const json& action_doc = documents_[manager_path].json["Actions"]["#Manager.Reset"];
  static const std::vector<std::string> known = {"ForceRestart", "GracefulRestart"};
  if (!allowed(action_doc, "ResetType", type) ||
      std::find(known.begin(), known.end(), type) == known.end())
    return action_parameter_value_not_in_list(type, "ResetType", action);
  ++counters_.manager_resets[type];
  return no_content();
}

Response BmcState::patch(const std::string& path, const Request& request) {
  const auto doc_it = documents_.find(path);
  if (doc_it == documents_.end()) return resource_missing(path);
  if (is_subscription(path)) return patch_subscription(path, request);
  if (path == media_path_) {
    const json body = json::parse(request.body(), nullptr, false);
    if (body.is_discarded() || !body.is_object()) return malformed_json();
    return *media_patch(path, body);
  }
  // A conditional PATCH of a resource that changed since it was read is refused (412).
  const auto stale = [&] {
    const auto if_match = request.find(http::field::if_match);
    return if_match != request.end() && if_match->value() != "*" &&
           std::string(if_match->value()) != etag(path);
  };
  if (accounts_.count(path)) {
    if (stale()) return precondition_failed();
    const json body = json::parse(request.body(), nullptr, false);
    if (body.is_discarded() || !body.is_object()) return malformed_json();
    return patch_account(path, body);
  }
  if (bios_settings_.count(path)) {
    const json body = json::parse(request.body(), nullptr, false);
    if (body.is_discarded() || !body.is_object()) return malformed_json();
    return patch_bios_settings(path, body);
  }
  const bool settings = settings_objects_.count(path) > 0;
  if (!power_.count(path) && !settings) return method_not_allowed(path);
  refresh_power(path);
  if (stale()) return precondition_failed();
  const json body = json::parse(request.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) return malformed_json();
  if (settings) return patch_settings(path, body);
  return patch_system(path, body);
}

std::optional<Response> BmcState::check_boot(const json& boot, const json& requested,
                                             json& changes) const {
  if (faults_.boot_mode_required && !requested.contains("BootSourceOverrideMode"))
    return property_missing("Boot/BootSourceOverrideMode");
  for (const auto& [name, setting] : requested.items()) {
    static const std::map<std::string, std::vector<std::string>> fixed = {
        {"BootSourceOverrideEnabled", {"Disabled", "Once", "Continuous"}},
        {"BootSourceOverrideMode", {"Legacy", "UEFI"}},
        {"BootSourceOverrideTarget", {}},  // from the document's AllowableValues
    };
    if (name == "BootOrder") {
      // A new order of the same boot options: none added, none lost.
      json before = boot.value("BootOrder", json::array());
      json after = setting;
      if (!after.is_array()) return property_value_type_error(setting.dump(), "Boot/BootOrder");
      std::sort(before.begin(), before.end());
      std::sort(after.begin(), after.end());
      if (before != after) return property_value_not_in_list(setting.dump(), "Boot/BootOrder");
      changes[name] = setting;
      continue;
    }
    const auto rule = fixed.find(name);
    if (rule == fixed.end()) return property_unknown("Boot/" + name);
    if (!setting.is_string()) return property_value_type_error(setting.dump(), "Boot/" + name);
    const std::string text = setting.get<std::string>();
    const auto& values = rule->second;
    if ((!values.empty() && std::find(values.begin(), values.end(), text) == values.end()) ||
        !allowed(boot, name, text))
      return property_value_not_in_list(text, "Boot/" + name);
    changes[name] = text;
  }
  return std::nullopt;
}

// All or nothing: every property is checked before any is applied.
Response BmcState::patch_system(const std::string& path, const json& body) {
  json& system = documents_.at(path).json;
  const json boot = system.value("Boot", json::object());
  json changes = json::object();
  json identify = json::object();
  for (const auto& [key, value] : body.items()) {
    if (key == "LocationIndicatorActive") {
      if (!system.contains(key)) return property_unknown(key);
      if (!value.is_boolean()) return property_value_type_error(value.dump(), key);
      identify[key] = value;
      continue;
    }
    if (key == "IndicatorLED") {
      if (!system.contains(key)) return property_unknown(key);
      if (!value.is_string() || (value != "Lit" && value != "Blinking" && value != "Off"))
        return property_value_not_in_list(value.dump(), key);
      identify[key] = value;
      continue;
    }
    if (key != "Boot") return property_unknown(key);
    if (faults_.boot_via_settings) return property_not_writable("Boot");
    if (!value.is_object()) return property_value_type_error(value.dump(), "Boot");
    if (auto refused = check_boot(boot, value, changes)) return std::move(*refused);
  }
  for (const auto& [name, value] : changes.items()) system["Boot"][name] = value;
  for (const auto& [name, value] : identify.items()) system[name] = value;
  if (!changes.empty()) ++counters_.boot_overrides;
  if (!identify.empty()) ++counters_.identify_changes;
  changed();
  auto res = json_response(http::status::ok, system);
  res.set(http::field::etag, etag(path));
  return res;
}

}  // namespace ironhold::sim::redfish

// BmcState's actions: ComputerSystem.Reset (the power state machine), Manager.Reset,
// UpdateService.SimpleUpdate, and the PATCH of a System (boot override, identify LED) — each
// checked against the mockup's AllowableValues and answered as a Redfish service would.
#include <algorithm>
#include <cctype>

#include "inventory/error.hpp"
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
  const bool listed = allowed(action_doc, "ResetType", type);
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
    // Like real BMCs, the System says when it was last (re)started: a client's evidence that a
    // reset happened even when it never saw the power go off.
    if (machine.steps.back().state == "On") {
      documents_[system_path].json["LastResetTime"] =
          format_rfc3339(std::chrono::system_clock::now());
      Clock::duration until_on{};
      for (const auto& step : machine.steps) until_on += step.lasts;
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
  if (enabled == "Disabled" || target != "Pxe") return;
  if (enabled == "Once") (*boot)["BootSourceOverrideEnabled"] = "Disabled";
  ++counters_.network_boots;
  if (!config_.network_boot) return;
  NetworkBoot request;
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

// SimpleUpdate answers 202 with a Task (its Location is the task monitor); the fleet's Updater
// then really downloads the image and carries the Task to Completed or Exception.
Response BmcState::simple_update(const Request& request) {
  const std::string action = "UpdateService.SimpleUpdate";
  const json body = json::parse(request.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) return malformed_json();
  const auto uri = body.find("ImageURI");
  if (uri == body.end()) return action_parameter_missing(action, "ImageURI");
  if (!uri->is_string() || uri->get<std::string>().empty())
    return property_value_type_error(uri->dump(), "ImageURI");
  std::vector<std::string> targets;
  if (const auto t = body.find("Targets"); t != body.end()) {
    if (!t->is_array()) return property_value_type_error(t->dump(), "Targets");
    for (const auto& target : *t) {
      const std::string path = target.is_string() ? resource_path(target.get<std::string>()) : "";
      if (path.empty() || !documents_.count(path) ||
          path.find("/FirmwareInventory/") == std::string::npos)
        return action_parameter_value_not_in_list(target.dump(), "Targets", action);
      targets.push_back(path);
    }
  }
  ++counters_.firmware_updates;
  const std::string id = std::to_string(next_task_++);
  const std::string path = tasks_path_ + "/" + id;
  json task = {{"@odata.id", path},
               {"@odata.type", "#Task.v1_7_4.Task"},
               {"Id", id},
               {"Name", "Firmware update " + id},
               {"TaskState", "New"},
               {"TaskStatus", "OK"},
               {"StartTime", format_rfc3339(std::chrono::system_clock::now())},
               {"PercentComplete", 0},
               {"Messages", json::array()},
               {"Payload",
                {{"TargetUri", simple_update_target_},
                 {"HttpOperation", "POST"},
                 {"JsonBody", request.body()}}}};
  json& collection = documents_.at(tasks_path_).json;
  collection["Members"].push_back({{"@odata.id", path}});
  collection["Members@odata.count"] = collection["Members"].size();
  documents_[path] = Document{true, task, {}, "application/json"};
  if (config_.firmware_update) {
    FirmwareJob job;
    job.bmc = config_.index;
    job.task = path;
    job.image_uri = uri->get<std::string>();
    job.targets = std::move(targets);
    job.fails = faults_.update_fails;
    job.hangs = faults_.update_hangs;
    config_.firmware_update(std::move(job));
  }
  Response res = json_response(http::status::accepted, task);
  res.set(http::field::location, path);
  res.prepare_payload();
  return res;
}

void BmcState::ensure_task_service() {
  for (const auto& [path, doc] : documents_)
    if (doc.is_json && doc.json.value("@odata.type", "").rfind("#TaskService.", 0) == 0) {
      tasks_path_ = resource_path(doc.json.value("Tasks", json::object()).value("@odata.id", ""));
      if (!tasks_path_.empty() && documents_.count(tasks_path_)) return;
    }
  // Firmware that offers SimpleUpdate runs tasks: give the mockup the service they live in.
  const std::string service = "/redfish/v1/TaskService";
  tasks_path_ = service + "/Tasks";
  documents_[service] = Document{true,
                                 {{"@odata.id", service},
                                  {"@odata.type", "#TaskService.v1_2_0.TaskService"},
                                  {"Id", "TaskService"},
                                  {"Name", "Task Service"},
                                  {"ServiceEnabled", true},
                                  {"Tasks", {{"@odata.id", tasks_path_}}}},
                                 {},
                                 "application/json"};
  documents_[tasks_path_] = Document{true,
                                     {{"@odata.id", tasks_path_},
                                      {"@odata.type", "#TaskCollection.TaskCollection"},
                                      {"Name", "Tasks"},
                                      {"Members", json::array()},
                                      {"Members@odata.count", 0}},
                                     {},
                                     "application/json"};
  if (auto root = documents_.find("/redfish/v1"); root != documents_.end() && root->second.is_json)
    root->second.json["TaskService"] = {{"@odata.id", service}};
}

void BmcState::update_task(const std::string& task_path, const json& patch) {
  std::lock_guard lock(mutex_);
  const auto it = documents_.find(task_path);
  if (it == documents_.end()) throw ironhold::not_found("no task " + task_path);
  it->second.json.merge_patch(patch);
}

void BmcState::install_firmware(const std::vector<std::string>& targets,
                                const std::string& component, const std::string& version,
                                bool on_reset) {
  std::lock_guard lock(mutex_);
  std::vector<std::string> entries = targets;
  if (entries.empty())
    for (const auto& [path, doc] : documents_)
      if (path.find("/FirmwareInventory/") != std::string::npos && doc.is_json &&
          doc.json.value("Id", "") == component)
        entries.push_back(path);
  if (entries.empty()) throw ironhold::not_found("no firmware inventory entry for " + component);
  for (const auto& entry : entries) {
    if (on_reset)
      pending_firmware_[entry] = version;
    else
      documents_.at(entry).json["Version"] = version;
  }
  ++counters_.updates_completed;
}

std::string BmcState::firmware_version(const std::string& entry_path) const {
  std::lock_guard lock(mutex_);
  const auto it = documents_.find(entry_path);
  if (it == documents_.end())
    throw ironhold::not_found("no firmware inventory entry " + entry_path);
  return it->second.json.value("Version", "");
}

Response BmcState::patch(const std::string& path, const Request& request) {
  const auto doc_it = documents_.find(path);
  if (doc_it == documents_.end()) return resource_missing(path);
  if (!power_.count(path)) return method_not_allowed(path);
  refresh_power(path);
  const auto if_match = request.find(http::field::if_match);
  if (if_match != request.end() && if_match->value() != "*" &&
      std::string(if_match->value()) != etag(path))
    return precondition_failed();
  const json body = json::parse(request.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) return malformed_json();
  return patch_system(path, body);
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
    if (!value.is_object()) return property_value_type_error(value.dump(), "Boot");
    for (const auto& [name, setting] : value.items()) {
      static const std::map<std::string, std::vector<std::string>> fixed = {
          {"BootSourceOverrideEnabled", {"Disabled", "Once", "Continuous"}},
          {"BootSourceOverrideMode", {"Legacy", "UEFI"}},
          {"BootSourceOverrideTarget", {}},  // from the document's AllowableValues
      };
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

// BmcState's firmware updates, by either method a Redfish UpdateService offers:
// UpdateService.SimpleUpdate (the BMC downloads the image from a URL) and a push to
// MultipartHttpPushUri (the client sends the image in a multipart/form-data POST, as bmcweb takes
// it). Both answer 202 with a Task (its Location is the task monitor) and hand the image to the
// fleet's Updater, which carries the Task to Completed or Exception through update_task and
// install_firmware.
#include "inventory/error.hpp"
#include "inventory/util/time.hpp"
#include "sim/redfish/bmc_state.hpp"
#include "sim/redfish/errors.hpp"
#include "sim/redfish/multipart.hpp"

namespace ironhold::sim::redfish {

using nlohmann::json;

BmcState::CheckedTargets BmcState::firmware_targets(const json& targets) const {
  CheckedTargets out;
  for (const auto& target : targets) {
    const std::string path = target.is_string() ? resource_path(target.get<std::string>()) : "";
    if (path.empty() || !documents_.count(path) ||
        path.find("/FirmwareInventory/") == std::string::npos) {
      out.refused = target;
      return out;
    }
    out.paths.push_back(path);
  }
  return out;
}

Response BmcState::simple_update(const Request& request) {
  const std::string action = "UpdateService.SimpleUpdate";
  const json body = json::parse(request.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) return malformed_json();
  const auto uri = body.find("ImageURI");
  if (uri == body.end()) return action_parameter_missing(action, "ImageURI");
  if (!uri->is_string() || uri->get<std::string>().empty())
    return property_value_type_error(uri->dump(), "ImageURI");
  FirmwareJob job;
  job.image_uri = uri->get<std::string>();
  if (const auto t = body.find("Targets"); t != body.end()) {
    if (!t->is_array()) return property_value_type_error(t->dump(), "Targets");
    CheckedTargets targets = firmware_targets(*t);
    if (targets.refused)
      return action_parameter_value_not_in_list(targets.refused->dump(), "Targets", action);
    job.targets = std::move(targets.paths);
  }
  return start_update(std::move(job), {{"TargetUri", simple_update_target_},
                                       {"HttpOperation", "POST"},
                                       {"JsonBody", request.body()}});
}

Response BmcState::push_update(const Request& request) {
  const auto type_field = request.find(http::field::content_type);
  const std::string_view type =
      type_field == request.end() ? std::string_view() : std::string_view(type_field->value());
  if (!is_form_data(type)) return unsupported_media_type("multipart/form-data");
  const auto boundary = form_boundary(type);
  if (!boundary)
    return unrecognized_request_body("its Content-Type has no usable boundary parameter");
  const auto parsed = parse_form_data(request.body(), *boundary);
  if (const auto* error = std::get_if<std::string>(&parsed))
    return unrecognized_request_body(*error);
  const FormPart* file = nullptr;
  const FormPart* parameters = nullptr;
  for (const FormPart& part : std::get<std::vector<FormPart>>(parsed)) {
    const FormPart** slot = part.name == "UpdateFile"         ? &file
                            : part.name == "UpdateParameters" ? &parameters
                                                              : nullptr;
    if (!slot) continue;  // other parts (an OEM's) are not ours to judge
    if (*slot) return unrecognized_request_body("it has two " + part.name + " parts");
    *slot = &part;
  }
  if (!file) return property_missing("UpdateFile");

  FirmwareJob job;
  std::string json_body = "{}";
  if (parameters) {
    json_body = std::string(parameters->body);
    const json settings = json::parse(json_body, nullptr, false);
    if (settings.is_discarded()) return malformed_json();
    if (!settings.is_object()) return property_value_type_error(json_body, "UpdateParameters");
    for (const auto& [key, value] : settings.items()) {
      if (key == "Targets") {
        if (!value.is_array()) return property_value_type_error(value.dump(), key);
        CheckedTargets targets = firmware_targets(value);
        if (targets.refused) return property_value_not_in_list(targets.refused->dump(), key);
        job.targets = std::move(targets.paths);
      } else if (key == "@Redfish.OperationApplyTime") {
        if (!value.is_string()) return property_value_type_error(value.dump(), key);
        if (value != "Immediate" && value != "OnReset")
          return property_value_not_in_list(value.get<std::string>(), key);
        job.apply_on_reset = value == "OnReset";
      } else if (key == "ForceUpdate") {
        // Accepted and moot: the simulated firmware flashes whatever version it is given.
        if (!value.is_boolean()) return property_value_type_error(value.dump(), key);
      } else {
        return property_unknown("UpdateParameters/" + key);
      }
    }
  }
  ++counters_.firmware_pushes;
  job.image = std::string(file->body);
  return start_update(
      std::move(job),
      {{"TargetUri", push_uri_}, {"HttpOperation", "POST"}, {"JsonBody", json_body}});
}

Response BmcState::start_update(FirmwareJob job, json payload) {
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
               {"Payload", std::move(payload)}};
  json& collection = documents_.at(tasks_path_).json;
  collection["Members"].push_back({{"@odata.id", path}});
  collection["Members@odata.count"] = collection["Members"].size();
  documents_[path] = Document{true, task, {}, "application/json"};
  if (config_.firmware_update) {
    job.bmc = config_.index;
    job.task = path;
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
  // Firmware that takes updates runs tasks: give the mockup the service they live in.
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

}  // namespace ironhold::sim::redfish

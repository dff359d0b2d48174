#include "sim/cloud/ec2/ec2_service.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <map>

#include "sim/cloud/ec2/ec2_xml_writer.hpp"

namespace ironhold::sim::cloud::ec2 {
namespace {

using Fault = Ec2Service::Fault;

constexpr std::string_view kTokenPrefix = "ironhold-sim-";

std::optional<std::string> param(const FormParams& params, std::string_view name) {
  for (const auto& [n, v] : params)
    if (n == name) return v;
  return std::nullopt;
}

std::optional<unsigned long> parse_number(std::string_view text) {
  unsigned long value = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// <prefix>.1, <prefix>.2, ... in numeric order (the Query API's list form).
std::vector<std::string> list_param(const FormParams& params, std::string_view prefix) {
  std::map<unsigned long, std::string> ordered;
  const std::string head = std::string(prefix) + ".";
  for (const auto& [n, v] : params) {
    if (!n.starts_with(head)) continue;
    if (const auto index = parse_number(std::string_view(n).substr(head.size())))
      ordered[*index] = v;
  }
  std::vector<std::string> out;
  for (auto& [index, value] : ordered) out.push_back(std::move(value));
  return out;
}

struct Filter {
  std::string name;
  std::vector<std::string> values;
};

std::vector<Filter> filters_of(const FormParams& params) {
  std::map<unsigned long, Filter> ordered;
  for (const auto& [n, v] : params) {
    if (!n.starts_with("Filter.")) continue;
    const std::string_view rest = std::string_view(n).substr(7);
    const auto dot = rest.find('.');
    const auto index = parse_number(rest.substr(0, dot));
    if (!index || dot == std::string_view::npos) continue;
    if (rest.substr(dot + 1) == "Name") ordered[*index].name = v;
  }
  for (auto& [index, filter] : ordered)
    filter.values = list_param(params, "Filter." + std::to_string(index) + ".Value");
  std::vector<Filter> out;
  for (auto& [index, filter] : ordered) out.push_back(std::move(filter));
  return out;
}

bool any_match(const std::vector<std::string>& patterns, std::string_view value) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return wildcard_match(p, value); });
}

bool well_formed_instance_id(std::string_view id) {
  if (!id.starts_with("i-") || (id.size() != 10 && id.size() != 19)) return false;
  return std::all_of(id.begin() + 2, id.end(),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

bool instance_matches(const SimInstance& instance, const Filter& filter) {
  if (filter.name == "instance-state-name") return any_match(filter.values, instance.state);
  if (filter.name == "instance-state-code")
    return any_match(filter.values, std::to_string(state_code(instance.state)));
  if (filter.name == "instance-type") return any_match(filter.values, instance.type);
  if (filter.name == "instance-id") return any_match(filter.values, instance.id);
  if (filter.name == "image-id") return any_match(filter.values, instance.image_id);
  if (filter.name == "availability-zone") return any_match(filter.values, instance.zone);
  if (filter.name.starts_with("tag:")) {
    const std::string key = filter.name.substr(4);
    for (const auto& [k, v] : instance.tags)
      if (k == key && any_match(filter.values, v)) return true;
    return false;
  }
  if (filter.name == "tag-key") {
    for (const auto& [k, v] : instance.tags)
      if (any_match(filter.values, k)) return true;
    return false;
  }
  throw Fault{400, "InvalidParameterValue", "The filter '" + filter.name + "' is invalid"};
}

struct Window {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::optional<std::string> next_token;
};

// The slice of `total` items this call returns: from NextToken, at most the simulator's page size
// (and MaxResults when given), with a NextToken when more remain.
Window page_window(const FormParams& params, std::size_t total, std::size_t page_size) {
  Window w;
  if (const auto token = param(params, "NextToken")) {
    const auto offset = token->starts_with(kTokenPrefix)
                            ? parse_number(std::string_view(*token).substr(kTokenPrefix.size()))
                            : std::nullopt;
    if (!offset || *offset > total)
      throw Fault{400, "InvalidParameterValue", "Invalid value '" + *token + "' for nextToken"};
    w.begin = *offset;
  }
  std::size_t size = std::max<std::size_t>(page_size, 1);
  if (const auto max = param(params, "MaxResults")) {
    const auto n = parse_number(*max);
    if (!n || *n < 5 || *n > 1000)
      throw Fault{400, "InvalidParameterValue",
                  "Value ( " + *max +
                      " ) for parameter maxResults is invalid. Expecting a value "
                      "between 5 and 1000."};
    size = std::min<std::size_t>(size, *n);
  }
  w.end = std::min(total, w.begin + size);
  if (w.end < total) w.next_token = std::string(kTokenPrefix) + std::to_string(w.end);
  return w;
}

void write_state(XmlWriter& xml, std::string_view element, std::string_view state) {
  xml.open(element).leaf("code", std::to_string(state_code(state))).leaf("name", state).close();
}

void write_instance(XmlWriter& xml, const SimInstance& instance) {
  const SimInstanceType* type = find_instance_type(instance.type);
  const bool has_address =
      instance.state == "running" || instance.state == "pending" || instance.state == "stopping";
  xml.open("item").leaf("instanceId", instance.id).leaf("imageId", instance.image_id);
  write_state(xml, "instanceState", instance.state);
  xml.leaf("privateDnsName",
           instance.state == "terminated" ? "" : "ip-" + instance.private_ip + ".ec2.internal")
      .leaf("dnsName", has_address ? "ec2-" + instance.public_ip + ".compute-1.amazonaws.com" : "")
      .leaf("keyName", instance.key_name)
      .leaf("amiLaunchIndex", "0")
      .leaf("instanceType", instance.type)
      .leaf("launchTime", instance.launch_time)
      .open("placement")
      .leaf("availabilityZone", instance.zone)
      .leaf("tenancy", "default")
      .close()
      .open("monitoring")
      .leaf("state", "disabled")
      .close();
  if (instance.state != "terminated") xml.leaf("privateIpAddress", instance.private_ip);
  if (has_address) xml.leaf("ipAddress", instance.public_ip);
  xml.leaf("architecture", "x86_64")
      .leaf("rootDeviceType", "ebs")
      .leaf("rootDeviceName", "/dev/sda1")
      .leaf("virtualizationType", "hvm");
  xml.open("tagSet");
  for (const auto& [key, value] : instance.tags)
    xml.open("item").leaf("key", key).leaf("value", value).close();
  xml.close();
  if (type)
    xml.open("cpuOptions")
        .leaf("coreCount", std::to_string(type->cores))
        .leaf("threadsPerCore", std::to_string(type->threads_per_core))
        .close();
  xml.close();
}

void write_instance_type(XmlWriter& xml, const SimInstanceType& type) {
  xml.open("item")
      .leaf("instanceType", type.name)
      .leaf("currentGeneration", "true")
      .open("vCpuInfo")
      .leaf("defaultVCpus", std::to_string(type.vcpus))
      .leaf("defaultCores", std::to_string(type.cores))
      .leaf("defaultThreadsPerCore", std::to_string(type.threads_per_core))
      .close()
      .open("memoryInfo")
      .leaf("sizeInMiB", std::to_string(type.memory_mib))
      .close();
  if (type.gpu_count > 0)
    xml.open("gpuInfo")
        .open("gpus")
        .open("item")
        .leaf("name", type.gpu_name)
        .leaf("manufacturer", type.gpu_manufacturer)
        .leaf("count", std::to_string(type.gpu_count))
        .open("memoryInfo")
        .leaf("sizeInMiB", std::to_string(type.gpu_memory_mib))
        .close()
        .close()
        .close()
        .leaf("totalGpuMemoryInMiB", std::to_string(type.gpu_memory_mib * type.gpu_count))
        .close();
  xml.close();
}

void write_task(XmlWriter& xml, std::string_view element, const SimRootVolumeTask& task) {
  xml.open(element)
      .leaf("replaceRootVolumeTaskId", task.id)
      .leaf("instanceId", task.instance_id)
      .leaf("taskState", task.state)
      .leaf("startTime", task.start_time);
  if (task.state == "succeeded") xml.leaf("completeTime", task.start_time);
  xml.open("tagSet").close();
  if (task.image_id) xml.leaf("imageId", *task.image_id);
  xml.leaf("deleteReplacedRootVolume", "true").close();
}

Fault incorrect_state(const std::string& id, std::string_view verb) {
  return Fault{400, "IncorrectInstanceState",
               "The instance '" + id + "' is not in a state from which it can be " +
                   std::string(verb) + "."};
}

}  // namespace

Ec2Service::Ec2Service(Settings settings, std::vector<SimInstance> fleet)
    : settings_(settings), instances_(std::move(fleet)) {}

void Ec2Service::advance(SteadyTime now) {
  for (auto& instance : instances_) {
    if (instance.target_state && instance.due <= now) {
      instance.state = *instance.target_state;
      instance.target_state.reset();
    }
  }
  for (auto& task : tasks_) {
    if (task.state == "succeeded") continue;
    const auto elapsed = now - task.created;
    if (elapsed >= settings_.transition) {
      task.state = "succeeded";
      if (task.image_id)
        for (auto& instance : instances_)
          if (instance.id == task.instance_id) instance.image_id = *task.image_id;
    } else if (elapsed >= settings_.transition / 3) {
      task.state = "in-progress";
    }
  }
}

SimInstance& Ec2Service::instance_or_throw(const std::string& id) {
  if (!well_formed_instance_id(id))
    throw Fault{400, "InvalidInstanceID.Malformed", "Invalid id: \"" + id + "\""};
  for (auto& instance : instances_)
    if (instance.id == id) return instance;
  throw Fault{400, "InvalidInstanceID.NotFound", "The instance ID '" + id + "' does not exist"};
}

std::vector<SimInstance*> Ec2Service::instances_named(const std::vector<std::string>& ids) {
  std::vector<SimInstance*> out;
  std::vector<std::string> missing;
  for (const auto& id : ids) {
    if (!well_formed_instance_id(id))
      throw Fault{400, "InvalidInstanceID.Malformed", "Invalid id: \"" + id + "\""};
    auto it = std::find_if(instances_.begin(), instances_.end(),
                           [&](const SimInstance& i) { return i.id == id; });
    if (it == instances_.end())
      missing.push_back(id);
    else
      out.push_back(&*it);
  }
  if (missing.size() == 1)
    throw Fault{400, "InvalidInstanceID.NotFound",
                "The instance ID '" + missing[0] + "' does not exist"};
  if (!missing.empty()) {
    std::string list;
    for (const auto& id : missing) list += (list.empty() ? "" : ", ") + id;
    throw Fault{400, "InvalidInstanceID.NotFound", "The instance IDs '" + list + "' do not exist"};
  }
  return out;
}

ApiReply Ec2Service::call(const FormParams& params) {
  const std::string action = param(params, "Action").value_or("");
  std::lock_guard lock(mutex_);
  advance(std::chrono::steady_clock::now());
  try {
    if (action == "DescribeInstances") return describe_instances(params);
    if (action == "DescribeInstanceTypes") return describe_instance_types(params);
    if (action == "DescribeInstanceStatus") return describe_instance_status(params);
    if (action == "StartInstances" || action == "StopInstances" || action == "TerminateInstances")
      return change_states(params, action);
    if (action == "RebootInstances") return reboot_instances(params);
    if (action == "CreateReplaceRootVolumeTask") return create_replace_root_volume_task(params);
    if (action == "DescribeReplaceRootVolumeTasks")
      return describe_replace_root_volume_tasks(params);
    if (action.empty())
      return error_reply(400, "MissingAction", "The request must contain the parameter Action");
    return error_reply(400, "InvalidAction",
                       "The action " + action + " is not valid for this web service.");
  } catch (const Fault& fault) {
    return error_reply(fault.status, fault.code, fault.message);
  }
}

ApiReply Ec2Service::describe_instances(const FormParams& params) {
  const auto ids = list_param(params, "InstanceId");
  if (!ids.empty() && param(params, "MaxResults"))
    throw Fault{400, "InvalidParameterCombination",
                "The parameter instancesSet cannot be used with the parameter maxResults"};
  std::vector<const SimInstance*> selected;
  if (!ids.empty()) {
    for (const SimInstance* i : instances_named(ids)) selected.push_back(i);
  } else {
    for (const auto& i : instances_) selected.push_back(&i);
  }
  const auto filters = filters_of(params);
  std::vector<const SimInstance*> matching;
  for (const SimInstance* i : selected)
    if (std::all_of(filters.begin(), filters.end(),
                    [&](const Filter& f) { return instance_matches(*i, f); }))
      matching.push_back(i);

  const Window w = page_window(params, matching.size(), settings_.page_size);
  XmlWriter xml("DescribeInstancesResponse", new_request_id());
  xml.open("reservationSet");
  for (std::size_t k = w.begin; k < w.end; ++k) {
    const SimInstance& instance = *matching[k];
    xml.open("item")
        .leaf("reservationId", "r-" + instance.id.substr(2))
        .leaf("ownerId", "123456789012")
        .open("groupSet")
        .close()
        .open("instancesSet");
    write_instance(xml, instance);
    xml.close().close();
  }
  xml.close();
  if (w.next_token) xml.leaf("nextToken", *w.next_token);
  return xml_reply(xml.finish());
}

ApiReply Ec2Service::describe_instance_types(const FormParams& params) {
  const auto names = list_param(params, "InstanceType");
  std::vector<const SimInstanceType*> selected;
  for (const auto& name : names) {
    const SimInstanceType* type = find_instance_type(name);
    if (!type)
      throw Fault{400, "InvalidInstanceType",
                  "The following supplied instance types do not exist: [" + name + "]"};
    selected.push_back(type);
  }
  if (names.empty())
    for (const auto& type : instance_type_catalogue()) selected.push_back(&type);
  std::vector<const SimInstanceType*> matching;
  for (const SimInstanceType* type : selected) {
    bool keep = true;
    for (const auto& filter : filters_of(params)) {
      if (filter.name == "instance-type")
        keep = keep && any_match(filter.values, type->name);
      else if (filter.name == "gpu-info.manufacturer")
        keep = keep && any_match(filter.values, type->gpu_manufacturer);
      else
        throw Fault{400, "InvalidParameterValue", "The filter '" + filter.name + "' is invalid"};
    }
    if (keep) matching.push_back(type);
  }
  const Window w = page_window(params, matching.size(), settings_.page_size);
  XmlWriter xml("DescribeInstanceTypesResponse", new_request_id());
  xml.open("instanceTypeSet");
  for (std::size_t k = w.begin; k < w.end; ++k) write_instance_type(xml, *matching[k]);
  xml.close();
  if (w.next_token) xml.leaf("nextToken", *w.next_token);
  return xml_reply(xml.finish());
}

ApiReply Ec2Service::describe_instance_status(const FormParams& params) {
  const auto ids = list_param(params, "InstanceId");
  const bool include_all = param(params, "IncludeAllInstances") == "true";
  std::vector<const SimInstance*> selected;
  if (!ids.empty()) {
    for (const SimInstance* i : instances_named(ids)) selected.push_back(i);
  } else {
    for (const auto& i : instances_) selected.push_back(&i);
  }
  std::vector<const SimInstance*> matching;
  for (const SimInstance* i : selected) {
    if (i->state == "terminated") continue;
    if (include_all || i->state == "running") matching.push_back(i);
  }
  const Window w = page_window(params, matching.size(), settings_.page_size);
  XmlWriter xml("DescribeInstanceStatusResponse", new_request_id());
  xml.open("instanceStatusSet");
  for (std::size_t k = w.begin; k < w.end; ++k) {
    const SimInstance& i = *matching[k];
    const std::string system = i.state == "running"   ? i.system_status
                               : i.state == "pending" ? "initializing"
                                                      : "not-applicable";
    const std::string own = i.state == "running"   ? "ok"
                            : i.state == "pending" ? "initializing"
                                                   : "not-applicable";
    xml.open("item").leaf("instanceId", i.id).leaf("availabilityZone", i.zone);
    write_state(xml, "instanceState", i.state);
    xml.open("systemStatus").leaf("status", system).close();
    xml.open("instanceStatus").leaf("status", own).close();
    xml.close();
  }
  xml.close();
  if (w.next_token) xml.leaf("nextToken", *w.next_token);
  return xml_reply(xml.finish());
}

ApiReply Ec2Service::change_states(const FormParams& params, const std::string& action) {
  const auto ids = list_param(params, "InstanceId");
  if (ids.empty())
    throw Fault{400, "MissingParameter", "The request must contain the parameter InstanceId"};
  const auto instances = instances_named(ids);
  // EC2 changes all or none: every instance is checked before any moves.
  struct Move {
    SimInstance* instance;
    std::string previous;
    std::optional<std::string> now;     // the state it enters (nothing: stays)
    std::optional<std::string> target;  // where the transition ends
  };
  std::vector<Move> moves;
  for (SimInstance* i : instances) {
    Move m{i, i->state, std::nullopt, std::nullopt};
    const std::string& s = i->state;
    if (action == "StartInstances") {
      if (s == "stopped") {
        m.now = "pending";
        m.target = "running";
      } else if (s != "running" && s != "pending")
        throw incorrect_state(i->id, "started");
    } else if (action == "StopInstances") {
      if (s == "running") {
        m.now = "stopping";
        m.target = "stopped";
      } else if (s != "stopped" && s != "stopping")
        throw incorrect_state(i->id, "stopped");
    } else {  // TerminateInstances
      if (s != "terminated" && s != "shutting-down") {
        m.now = "shutting-down";
        m.target = "terminated";
      }
    }
    moves.push_back(m);
  }
  const auto due = std::chrono::steady_clock::now() + settings_.transition;
  const std::string root = action + "Response";
  XmlWriter xml(root, new_request_id());
  xml.open("instancesSet");
  for (auto& m : moves) {
    if (m.now) {
      m.instance->state = *m.now;
      m.instance->target_state = m.target;
      m.instance->due = due;
      if (*m.now == "pending") m.instance->launch_time = ec2_timestamp_now();
    }
    xml.open("item").leaf("instanceId", m.instance->id);
    write_state(xml, "currentState", m.instance->state);
    write_state(xml, "previousState", m.previous);
    xml.close();
  }
  xml.close();
  return xml_reply(xml.finish());
}

ApiReply Ec2Service::reboot_instances(const FormParams& params) {
  const auto ids = list_param(params, "InstanceId");
  if (ids.empty())
    throw Fault{400, "MissingParameter", "The request must contain the parameter InstanceId"};
  const auto instances = instances_named(ids);
  for (SimInstance* i : instances)
    if (i->state != "running") throw incorrect_state(i->id, "rebooted");
  for (SimInstance* i : instances) ++i->reboots;
  XmlWriter xml("RebootInstancesResponse", new_request_id());
  xml.leaf("return", "true");
  return xml_reply(xml.finish());
}

ApiReply Ec2Service::create_replace_root_volume_task(const FormParams& params) {
  const auto id = param(params, "InstanceId");
  if (!id)
    throw Fault{400, "MissingParameter", "The request must contain the parameter InstanceId"};
  SimInstance& instance = instance_or_throw(*id);
  const auto image = param(params, "ImageId");
  if (image && param(params, "SnapshotId"))
    throw Fault{400, "InvalidParameterCombination",
                "ImageId and SnapshotId cannot be specified together"};
  if (image && !image->starts_with("ami-"))
    throw Fault{400, "InvalidAMIID.Malformed", "Invalid id: \"" + *image + "\""};
  const std::string token = param(params, "ClientToken").value_or("");
  const SimRootVolumeTask* task = nullptr;
  if (!token.empty())
    for (const auto& t : tasks_)
      if (t.client_token == token && t.instance_id == instance.id) task = &t;
  if (!task) {
    if (instance.state != "running")
      throw Fault{400, "IncorrectInstanceState",
                  "The instance '" + instance.id + "' is not in a valid state for this operation."};
    SimRootVolumeTask t;
    std::array<char, 32> id_buffer{};
    std::snprintf(id_buffer.data(), id_buffer.size(), "replacevol-%017lx", next_task_++);
    t.id = id_buffer.data();
    t.instance_id = instance.id;
    t.image_id = image;
    t.client_token = token;
    t.created = std::chrono::steady_clock::now();
    t.start_time = ec2_timestamp_now();
    tasks_.push_back(std::move(t));
    task = &tasks_.back();
  }
  XmlWriter xml("CreateReplaceRootVolumeTaskResponse", new_request_id());
  write_task(xml, "replaceRootVolumeTask", *task);
  return xml_reply(xml.finish());
}

ApiReply Ec2Service::describe_replace_root_volume_tasks(const FormParams& params) {
  const auto ids = list_param(params, "ReplaceRootVolumeTaskId");
  for (const auto& id : ids)
    if (std::none_of(tasks_.begin(), tasks_.end(),
                     [&](const SimRootVolumeTask& t) { return t.id == id; }))
      throw Fault{400, "InvalidReplaceRootVolumeTaskId.NotFound",
                  "The replace root volume task ID '" + id + "' does not exist"};
  std::vector<const SimRootVolumeTask*> matching;
  const auto filters = filters_of(params);
  for (const auto& task : tasks_) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), task.id) == ids.end()) continue;
    bool keep = true;
    for (const auto& filter : filters) {
      if (filter.name == "instance-id")
        keep = keep && any_match(filter.values, task.instance_id);
      else
        throw Fault{400, "InvalidParameterValue", "The filter '" + filter.name + "' is invalid"};
    }
    if (keep) matching.push_back(&task);
  }
  const Window w = page_window(params, matching.size(), settings_.page_size);
  XmlWriter xml("DescribeReplaceRootVolumeTasksResponse", new_request_id());
  xml.open("replaceRootVolumeTaskSet");
  for (std::size_t k = w.begin; k < w.end; ++k) write_task(xml, "item", *matching[k]);
  xml.close();
  if (w.next_token) xml.leaf("nextToken", *w.next_token);
  return xml_reply(xml.finish());
}

bool Ec2Service::terminate_now(const std::string& id) {
  std::lock_guard lock(mutex_);
  for (auto& instance : instances_) {
    if (instance.id != id) continue;
    instance.state = "terminated";
    instance.target_state.reset();
    return true;
  }
  return false;
}

bool Ec2Service::set_system_status(const std::string& id, const std::string& status) {
  std::lock_guard lock(mutex_);
  for (auto& instance : instances_) {
    if (instance.id != id) continue;
    instance.system_status = status;
    return true;
  }
  return false;
}

nlohmann::json Ec2Service::snapshot() {
  std::lock_guard lock(mutex_);
  advance(std::chrono::steady_clock::now());
  nlohmann::json out = nlohmann::json::array();
  for (const auto& i : instances_) {
    nlohmann::json tags = nlohmann::json::object();
    for (const auto& [k, v] : i.tags) tags[k] = v;
    nlohmann::json tasks = nlohmann::json::array();
    for (const auto& t : tasks_)
      if (t.instance_id == i.id)
        tasks.push_back({{"id", t.id}, {"state", t.state}, {"image_id", t.image_id.value_or("")}});
    out.push_back({{"id", i.id},
                   {"type", i.type},
                   {"state", i.state},
                   {"target_state", i.target_state.value_or("")},
                   {"image_id", i.image_id},
                   {"zone", i.zone},
                   {"tags", tags},
                   {"reboots", i.reboots},
                   {"system_status", i.system_status},
                   {"replace_root_volume_tasks", tasks}});
  }
  return out;
}

}  // namespace ironhold::sim::cloud::ec2

#include "cloudapi/ec2/ec2_xml.hpp"

#include <array>
#include <ctime>

#include "cloudapi/ec2/xml_tree.hpp"
#include "inventory/error.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::cloudapi::ec2 {
namespace {

using xml::Document;

// The answer must be the one asked for; an error document in its place says what went wrong.
Document open_answer(std::string_view body, std::string_view expected_root) {
  const std::string what = "the EC2 " + std::string(expected_root);
  Document doc(body, what);
  const std::string root = doc.root_name();
  if (root == expected_root) return doc;
  if (const auto error = parse_error(body))
    throw invalid(what + " is an error: " + error->code + ": " + error->message);
  throw invalid(what + " has the root element <" + root + ">");
}

void set_if(nlohmann::json& object, const char* key, const std::optional<std::string>& value) {
  if (value && !value->empty()) object[key] = *value;
}

CloudInstance parse_instance(const Document& doc, const xmlNode* item) {
  CloudInstance out;
  out.provider_id = doc.text(item, {"instanceId"}).value_or("");
  if (out.provider_id.empty()) throw invalid("an EC2 instance without instanceId");
  out.provider_state = doc.text(item, {"instanceState", "name"}).value_or("");
  const MappedState mapped = map_instance_state(out.provider_state);
  out.power_state = mapped.power;
  out.gone = mapped.gone;
  if (const auto type = doc.text(item, {"instanceType"}); type && !type->empty())
    out.instance_type = *type;
  if (const auto image = doc.text(item, {"imageId"}); image && !image->empty())
    out.image_id = *image;
  if (const auto zone = doc.text(item, {"placement", "availabilityZone"}); zone && !zone->empty())
    out.zone = *zone;
  if (const auto launched = doc.text(item, {"launchTime"}))
    out.launched_at = normalize_launch_time(*launched);

  for (const xmlNode* tag : doc.items(item, "tagSet")) {
    const auto key = doc.text(tag, {"key"});
    if (!key) continue;
    const std::string value = doc.text(tag, {"value"}).value_or("");
    out.tags[*key] = value;
    if (*key == "Name") out.name = value;
  }

  // The high byte of the state code is internal to AWS (the model says to ignore it).
  if (const auto code = doc.integer(item, {"instanceState", "code"}))
    out.details["state_code"] = static_cast<int>(*code & 0xFF);
  set_if(out.details, "private_ip_address", doc.text(item, {"privateIpAddress"}));
  set_if(out.details, "public_ip_address", doc.text(item, {"ipAddress"}));
  set_if(out.details, "private_dns_name", doc.text(item, {"privateDnsName"}));
  set_if(out.details, "public_dns_name", doc.text(item, {"dnsName"}));
  set_if(out.details, "vpc_id", doc.text(item, {"vpcId"}));
  set_if(out.details, "subnet_id", doc.text(item, {"subnetId"}));
  set_if(out.details, "key_name", doc.text(item, {"keyName"}));
  set_if(out.details, "architecture", doc.text(item, {"architecture"}));
  set_if(out.details, "platform", doc.text(item, {"platform"}));

  const auto cores = doc.integer(item, {"cpuOptions", "coreCount"});
  const auto threads = doc.integer(item, {"cpuOptions", "threadsPerCore"});
  if (cores && threads && *cores > 0 && *threads > 0 && *cores * *threads < 1'000'000)
    out.summary.cpu_count = static_cast<int>(*cores * *threads);
  return out;
}

std::optional<std::string> next_token_of(const Document& doc) {
  auto token = doc.text(doc.root(), {"nextToken"});
  if (token && token->empty()) return std::nullopt;
  return token;
}

StateChange parse_state_change(const Document& doc, const xmlNode* item) {
  StateChange out;
  out.instance_id = doc.text(item, {"instanceId"}).value_or("");
  out.current_state = doc.text(item, {"currentState", "name"}).value_or("");
  out.current_code =
      static_cast<int>(doc.integer(item, {"currentState", "code"}).value_or(0) & 0xFF);
  out.previous_state = doc.text(item, {"previousState", "name"}).value_or("");
  out.previous_code =
      static_cast<int>(doc.integer(item, {"previousState", "code"}).value_or(0) & 0xFF);
  if (out.instance_id.empty()) throw invalid("an EC2 state change without instanceId");
  return out;
}

ReplaceRootVolumeTask parse_task(const Document& doc, const xmlNode* node) {
  ReplaceRootVolumeTask out;
  out.task_id = doc.text(node, {"replaceRootVolumeTaskId"}).value_or("");
  out.instance_id = doc.text(node, {"instanceId"}).value_or("");
  out.state = doc.text(node, {"taskState"}).value_or("");
  if (const auto image = doc.text(node, {"imageId"}); image && !image->empty())
    out.image_id = *image;
  if (out.task_id.empty()) throw invalid("an EC2 replace-root-volume task without its id");
  return out;
}

}  // namespace

MappedState map_instance_state(std::string_view name) {
  if (name == "running") return {PowerState::on, false};
  if (name == "stopped") return {PowerState::off, false};
  if (name == "pending" || name == "stopping" || name == "shutting-down")
    return {PowerState::transitioning, false};
  if (name == "terminated") return {PowerState::unknown, true};
  return {PowerState::unknown, false};
}

std::optional<Ec2Error> parse_error(std::string_view body) {
  try {
    Document doc(body, "the EC2 error");
    if (doc.root_name() != "Response") return std::nullopt;
    const xmlNode* error = doc.find(doc.root(), {"Errors", "Error"});
    if (!error) return std::nullopt;
    Ec2Error out;
    out.code = doc.text(error, {"Code"}).value_or("");
    out.message = doc.text(error, {"Message"}).value_or("");
    out.request_id = doc.text(doc.root(), {"RequestID"}).value_or("");
    if (out.code.empty()) return std::nullopt;
    return out;
  } catch (const Error&) {
    return std::nullopt;
  }
}

InstancePage parse_describe_instances(std::string_view body) {
  const Document doc = open_answer(body, "DescribeInstancesResponse");
  InstancePage page;
  for (const xmlNode* reservation : doc.items(doc.root(), "reservationSet")) {
    const auto reservation_id = doc.text(reservation, {"reservationId"});
    for (const xmlNode* item : doc.items(reservation, "instancesSet")) {
      CloudInstance instance = parse_instance(doc, item);
      set_if(instance.details, "reservation_id", reservation_id);
      page.instances.push_back(std::move(instance));
    }
  }
  page.next_token = next_token_of(doc);
  return page;
}

std::vector<CloudInstance> parse_run_instances(std::string_view body) {
  const Document doc = open_answer(body, "RunInstancesResponse");
  std::vector<CloudInstance> out;
  for (const xmlNode* item : doc.items(doc.root(), "instancesSet"))
    out.push_back(parse_instance(doc, item));
  return out;
}

InstanceTypePage parse_describe_instance_types(std::string_view body) {
  const Document doc = open_answer(body, "DescribeInstanceTypesResponse");
  InstanceTypePage page;
  for (const xmlNode* item : doc.items(doc.root(), "instanceTypeSet")) {
    InstanceTypeFacts facts;
    facts.instance_type = doc.text(item, {"instanceType"}).value_or("");
    if (facts.instance_type.empty()) throw invalid("an EC2 instance type without its name");
    if (const auto vcpus = doc.integer(item, {"vCpuInfo", "defaultVCpus"});
        vcpus && *vcpus >= 0 && *vcpus < 1'000'000)
      facts.vcpus = static_cast<int>(*vcpus);
    facts.memory_mib = doc.integer(item, {"memoryInfo", "sizeInMiB"});
    for (const xmlNode* gpu : doc.items(doc.find(item, {"gpuInfo"}), "gpus")) {
      Ec2Gpu g;
      g.name = doc.text(gpu, {"name"}).value_or("");
      g.manufacturer = doc.text(gpu, {"manufacturer"}).value_or("");
      const auto count = doc.integer(gpu, {"count"}).value_or(0);
      g.count = count > 0 && count < 1'000'000 ? static_cast<int>(count) : 0;
      g.memory_mib = doc.integer(gpu, {"memoryInfo", "sizeInMiB"});
      facts.gpus.push_back(std::move(g));
    }
    page.types.push_back(std::move(facts));
  }
  page.next_token = next_token_of(doc);
  return page;
}

std::vector<StateChange> parse_state_changes(std::string_view body) {
  Document doc(body, "the EC2 state change answer");
  const std::string root = doc.root_name();
  if (root != "StartInstancesResponse" && root != "StopInstancesResponse" &&
      root != "TerminateInstancesResponse") {
    if (const auto error = parse_error(body))
      throw invalid("the EC2 state change answer is an error: " + error->code + ": " +
                    error->message);
    throw invalid("the EC2 state change answer has the root element <" + root + ">");
  }
  std::vector<StateChange> out;
  for (const xmlNode* item : doc.items(doc.root(), "instancesSet"))
    out.push_back(parse_state_change(doc, item));
  return out;
}

bool parse_reboot(std::string_view body) {
  const Document doc = open_answer(body, "RebootInstancesResponse");
  const auto value = doc.text(doc.root(), {"return"});
  return !value || *value == "true";
}

Health health_of_checks(const std::optional<std::string>& system,
                        const std::optional<std::string>& instance) {
  if (system == "impaired" || instance == "impaired") return Health::critical;
  if (system == "ok" && instance == "ok") return Health::ok;
  return Health::unknown;
}

InstanceStatusPage parse_describe_instance_status(std::string_view body) {
  const Document doc = open_answer(body, "DescribeInstanceStatusResponse");
  InstanceStatusPage page;
  for (const xmlNode* item : doc.items(doc.root(), "instanceStatusSet")) {
    InstanceStatus status;
    status.instance_id = doc.text(item, {"instanceId"}).value_or("");
    if (status.instance_id.empty()) throw invalid("an EC2 instance status without instanceId");
    status.state = doc.text(item, {"instanceState", "name"}).value_or("");
    status.system = doc.text(item, {"systemStatus", "status"});
    status.instance = doc.text(item, {"instanceStatus", "status"});
    status.health = health_of_checks(status.system, status.instance);
    page.statuses.push_back(std::move(status));
  }
  page.next_token = next_token_of(doc);
  return page;
}

ReplaceRootVolumeTask parse_create_replace_root_volume_task(std::string_view body) {
  const Document doc = open_answer(body, "CreateReplaceRootVolumeTaskResponse");
  const xmlNode* task = doc.child(doc.root(), "replaceRootVolumeTask");
  if (!task) throw invalid("the EC2 CreateReplaceRootVolumeTaskResponse has no task");
  return parse_task(doc, task);
}

ReplaceRootVolumeTaskPage parse_describe_replace_root_volume_tasks(std::string_view body) {
  const Document doc = open_answer(body, "DescribeReplaceRootVolumeTasksResponse");
  ReplaceRootVolumeTaskPage page;
  for (const xmlNode* item : doc.items(doc.root(), "replaceRootVolumeTaskSet"))
    page.tasks.push_back(parse_task(doc, item));
  page.next_token = next_token_of(doc);
  return page;
}

std::optional<std::string> normalize_launch_time(std::string_view text) {
  const auto when = parse_rfc3339(text);
  if (!when) return std::nullopt;
  const std::time_t t = std::chrono::system_clock::to_time_t(*when);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buffer{};
  const std::size_t n = std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buffer.data(), n);
}

}  // namespace ironhold::cloudapi::ec2

#pragma once
// EC2 Query API answers (XML, namespace http://ec2.amazonaws.com/doc/2016-11-15/) read with
// libxml2 into what the driver needs. Unknown elements are ignored (newer answers add fields);
// malformed XML or the wrong answer throws ironhold::Error (invalid) with a message that says
// which answer and why.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/drivers/cloud_driver.hpp"

namespace ironhold::cloudapi::ec2 {

// running → on; stopped → off; pending/stopping/shutting-down → transitioning; terminated →
// gone (power unknown); anything else → unknown.
struct MappedState {
  PowerState power = PowerState::unknown;
  bool gone = false;
};
MappedState map_instance_state(std::string_view name);

// <Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>
struct Ec2Error {
  std::string code;
  std::string message;
  std::string request_id;
};
// Nothing when `body` is not an EC2 error document (malformed XML included).
std::optional<Ec2Error> parse_error(std::string_view body);

// DescribeInstances (and RunInstances): each instance as a CloudInstance without its type facts
// (vCPUs, memory, GPUs come from DescribeInstanceTypes). summary.cpu_count is filled from
// cpuOptions (coreCount × threadsPerCore) when the answer has them, as a fallback. details:
// state_code, private_ip_address, public_ip_address, private_dns_name, public_dns_name, vpc_id,
// subnet_id, key_name, architecture, platform, reservation_id (those present).
struct InstancePage {
  std::vector<CloudInstance> instances;
  std::optional<std::string> next_token;
};
InstancePage parse_describe_instances(std::string_view body);
std::vector<CloudInstance> parse_run_instances(std::string_view body);

struct Ec2Gpu {
  std::string name;          // "H100"
  std::string manufacturer;  // "NVIDIA"
  int count = 0;
  std::optional<long long> memory_mib;  // per card
};

struct InstanceTypeFacts {
  std::string instance_type;
  std::optional<int> vcpus;             // vCpuInfo/defaultVCpus
  std::optional<long long> memory_mib;  // memoryInfo/sizeInMiB
  std::vector<Ec2Gpu> gpus;             // gpuInfo/gpus/item
};
struct InstanceTypePage {
  std::vector<InstanceTypeFacts> types;
  std::optional<std::string> next_token;
};
InstanceTypePage parse_describe_instance_types(std::string_view body);

// Start/Stop/TerminateInstances: one change per instance.
struct StateChange {
  std::string instance_id;
  std::string current_state;
  int current_code = 0;
  std::string previous_state;
  int previous_code = 0;
};
std::vector<StateChange> parse_state_changes(std::string_view body);

// RebootInstances: <return> (true where absent, as the 1.29 model has no output for it).
bool parse_reboot(std::string_view body);

// DescribeInstanceStatus: the two status checks and what they mean for health
// (impaired → critical; both ok → ok; insufficient-data, initializing, not-applicable → unknown).
struct InstanceStatus {
  std::string instance_id;
  std::string state;                    // instanceState/name
  std::optional<std::string> system;    // systemStatus/status
  std::optional<std::string> instance;  // instanceStatus/status
  Health health = Health::unknown;
};
struct InstanceStatusPage {
  std::vector<InstanceStatus> statuses;
  std::optional<std::string> next_token;
};
InstanceStatusPage parse_describe_instance_status(std::string_view body);
Health health_of_checks(const std::optional<std::string>& system,
                        const std::optional<std::string>& instance);

struct ReplaceRootVolumeTask {
  std::string task_id;
  std::string instance_id;
  std::string state;  // pending, in-progress, failing, succeeded, failed, failed-detached
  std::optional<std::string> image_id;
};
ReplaceRootVolumeTask parse_create_replace_root_volume_task(std::string_view body);
struct ReplaceRootVolumeTaskPage {
  std::vector<ReplaceRootVolumeTask> tasks;
  std::optional<std::string> next_token;
};
ReplaceRootVolumeTaskPage parse_describe_replace_root_volume_tasks(std::string_view body);

// RFC 3339 UTC without fractions ("2026-11-29T16:50:25Z") from EC2's "2026-11-29T16:50:25.000Z";
// nothing when unparseable.
std::optional<std::string> normalize_launch_time(std::string_view text);

}  // namespace ironhold::cloudapi::ec2

#pragma once
// The EC2 Query actions the simulator answers, over its instances: Describe{Instances,
// InstanceTypes,InstanceStatus}, Start/Stop/Reboot/TerminateInstances, CreateReplaceRootVolumeTask
// and DescribeReplaceRootVolumeTasks, with EC2's error codes. Transitions (pending → running,
// stopping → stopped, shutting-down → terminated, a task's pending → in-progress → succeeded)
// complete after the configured delay, checked whenever the state is read. Thread-safe.
#include <chrono>
#include <cstddef>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sim/cloud/api_server.hpp"
#include "sim/cloud/ec2/ec2_model.hpp"

namespace ironhold::sim::cloud::ec2 {

using FormParams = std::vector<std::pair<std::string, std::string>>;

class Ec2Service {
 public:
  struct Settings {
    std::size_t page_size = 2;
    std::chrono::milliseconds transition{1500};
  };

  Ec2Service(Settings settings, std::vector<SimInstance> fleet);

  // One API call (Action=... and its parameters, already authenticated).
  ApiReply call(const FormParams& params);

  // Control: the instance becomes terminated at once; false when unknown.
  bool terminate_now(const std::string& id);
  // Control: "ok" or "impaired" system status checks for a running instance.
  bool set_system_status(const std::string& id, const std::string& status);
  // The raw state, for tests and GET /_sim/instances.
  nlohmann::json snapshot();

  struct Fault {
    unsigned status;
    std::string code;
    std::string message;
  };

 private:
  void advance(SteadyTime now);
  SimInstance& instance_or_throw(const std::string& id);
  std::vector<SimInstance*> instances_named(const std::vector<std::string>& ids);

  ApiReply describe_instances(const FormParams& params);
  ApiReply describe_instance_types(const FormParams& params);
  ApiReply describe_instance_status(const FormParams& params);
  ApiReply change_states(const FormParams& params, const std::string& action);
  ApiReply reboot_instances(const FormParams& params);
  ApiReply create_replace_root_volume_task(const FormParams& params);
  ApiReply describe_replace_root_volume_tasks(const FormParams& params);

  std::mutex mutex_;
  Settings settings_;
  std::vector<SimInstance> instances_;
  std::vector<SimRootVolumeTask> tasks_;
  unsigned long next_task_ = 1;
};

}  // namespace ironhold::sim::cloud::ec2

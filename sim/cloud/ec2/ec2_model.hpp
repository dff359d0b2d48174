#pragma once
// What the EC2 simulator holds: instance types (GPU facts from moto's catalogue of real types),
// instances with their EC2 state and the transition in progress, and replace-root-volume tasks.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ironhold::sim::cloud::ec2 {

using SteadyTime = std::chrono::steady_clock::time_point;

struct SimInstanceType {
  std::string name;
  int vcpus = 0;
  int cores = 0;
  int threads_per_core = 0;
  long long memory_mib = 0;
  std::string gpu_name;
  std::string gpu_manufacturer;
  int gpu_count = 0;
  long long gpu_memory_mib = 0;  // per card
};

// p5.48xlarge (8× H100), p4d.24xlarge (8× A100), g5.xlarge (1× A10G), g6.xlarge (1× L4).
const std::vector<SimInstanceType>& instance_type_catalogue();
const SimInstanceType* find_instance_type(std::string_view name);

struct SimInstance {
  std::string id;
  std::string type;
  std::string image_id;
  std::string zone;
  std::string private_ip;
  std::string public_ip;
  std::string launch_time;  // "2026-11-29T16:50:25.000Z"
  std::string key_name;
  std::vector<std::pair<std::string, std::string>> tags;
  std::string state;  // pending, running, stopping, stopped, shutting-down, terminated
  // The state a transition in progress ends in, and when.
  std::optional<std::string> target_state;
  SteadyTime due{};
  int reboots = 0;
  std::string system_status = "ok";  // while running: ok or impaired
};

struct SimRootVolumeTask {
  std::string id;
  std::string instance_id;
  std::optional<std::string> image_id;
  std::string client_token;
  std::string state = "pending";  // pending → in-progress → succeeded
  SteadyTime created{};
  std::string start_time;  // RFC 3339
};

// EC2's state codes: 0 pending, 16 running, 32 shutting-down, 48 terminated, 64 stopping,
// 80 stopped.
int state_code(std::string_view state);

// A handful of GPU instances, mixed running and stopped, in `region`'s a and b zones.
std::vector<SimInstance> default_fleet(std::string_view region);

// EC2 filter values: '*' matches any run of characters, '?' any one.
bool wildcard_match(std::string_view pattern, std::string_view text);

// "2026-11-30T06:07:08.000Z" for now.
std::string ec2_timestamp_now();

}  // namespace ironhold::sim::cloud::ec2

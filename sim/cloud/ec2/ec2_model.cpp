#include "sim/cloud/ec2/ec2_model.hpp"

#include <array>
#include <ctime>

namespace ironhold::sim::cloud::ec2 {

const std::vector<SimInstanceType>& instance_type_catalogue() {
  // Values from moto's instance type catalogue (cloud-samples/aws/instance-types).
  static const std::vector<SimInstanceType> types = {
      {"p5.48xlarge", 192, 96, 2, 2097152, "H100", "NVIDIA", 8, 81920},
      {"p4d.24xlarge", 96, 48, 2, 1179648, "A100", "NVIDIA", 8, 40960},
      {"g5.xlarge", 4, 2, 2, 16384, "A10G", "NVIDIA", 1, 22888},
      {"g6.xlarge", 4, 2, 2, 16384, "L4", "NVIDIA", 1, 22888},
  };
  return types;
}

const SimInstanceType* find_instance_type(std::string_view name) {
  for (const auto& type : instance_type_catalogue())
    if (type.name == name) return &type;
  return nullptr;
}

int state_code(std::string_view state) {
  if (state == "pending") return 0;
  if (state == "running") return 16;
  if (state == "shutting-down") return 32;
  if (state == "terminated") return 48;
  if (state == "stopping") return 64;
  if (state == "stopped") return 80;
  return 0;
}

std::vector<SimInstance> default_fleet(std::string_view region) {
  struct Seed {
    const char* id;
    const char* name;
    const char* type;
    const char* state;
    char zone;
    const char* team;
  };
  static constexpr std::array<Seed, 6> seeds = {{
      {"i-0e2c5000000000001", "train-h100-01", "p5.48xlarge", "running", 'a', "research"},
      {"i-0e2c5000000000002", "train-h100-02", "p5.48xlarge", "stopped", 'a', "research"},
      {"i-0e2c5000000000003", "train-a100-01", "p4d.24xlarge", "running", 'b', "research"},
      {"i-0e2c5000000000004", "train-a100-02", "p4d.24xlarge", "running", 'b', "platform"},
      {"i-0e2c5000000000005", "infer-a10g-01", "g5.xlarge", "running", 'a', "inference"},
      {"i-0e2c5000000000006", "infer-a10g-02", "g5.xlarge", "stopped", 'b', "inference"},
  }};
  std::vector<SimInstance> fleet;
  int n = 0;
  for (const auto& seed : seeds) {
    SimInstance instance;
    instance.id = seed.id;
    instance.type = seed.type;
    instance.image_id = "ami-0fa1b2c3d4e5f6a70";
    instance.zone = std::string(region) + seed.zone;
    instance.private_ip =
        "10.0." + std::to_string(seed.zone == 'a' ? 1 : 2) + "." + std::to_string(11 + n);
    instance.public_ip = "203.0.113." + std::to_string(11 + n);
    instance.launch_time = "2026-11-02T09:1" + std::to_string(n) + ":00.000Z";
    instance.key_name = "ironhold-demo";
    instance.tags = {{"Name", seed.name}, {"team", seed.team}};
    instance.state = seed.state;
    fleet.push_back(std::move(instance));
    ++n;
  }
  return fleet;
}

bool wildcard_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string ec2_timestamp_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buffer{};
  const std::size_t n = std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%S.000Z", &tm);
  return std::string(buffer.data(), n);
}

}  // namespace ironhold::sim::cloud::ec2

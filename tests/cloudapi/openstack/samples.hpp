#pragma once
// The OpenStack reference samples (../shared/cloud-samples/openstack/, from Nova's and Keystone's
// own api-ref trees), loaded as JSON for the parser tests. Absent when the shared folder is not
// beside the clone; tests then WARN and return.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

namespace ironhold::test::openstack {

inline std::filesystem::path samples_dir() {
  return std::filesystem::path(IRONHOLD_SHARED_DIR) / "cloud-samples" / "openstack";
}

inline bool have_samples() {
  return std::filesystem::is_directory(samples_dir());
}

inline std::string sample_text(const std::string& relative) {
  std::ifstream in(samples_dir() / relative, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline nlohmann::json sample(const std::string& relative) {
  return nlohmann::json::parse(sample_text(relative));
}

}  // namespace ironhold::test::openstack

#pragma once
// Where the BCC tests find Baidu's reference material (../shared/cloud-samples/baidu): the
// bce-auth-v1 vectors and the JSON key names of the Go SDK's BCC structs.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

namespace ironhold::test::bcc {

inline std::filesystem::path baidu_samples_dir() {
#ifdef IRONHOLD_SHARED_DIR
  return std::filesystem::path(IRONHOLD_SHARED_DIR) / "cloud-samples" / "baidu";
#else
  return std::filesystem::path(__FILE__)
             .parent_path()
             .parent_path()
             .parent_path()
             .parent_path()
             .parent_path() /
         "shared" / "cloud-samples" / "baidu";
#endif
}

// The sample file as JSON, or nullopt (with a WARN, so the test skips) when the shared
// material is not beside the clone.
inline std::optional<nlohmann::json> baidu_sample(const std::string& name) {
  const auto path = baidu_samples_dir() / name;
  std::ifstream in(path);
  if (!in.good()) {
    WARN("skipped: no Baidu samples at " << path.string());
    return std::nullopt;
  }
  return nlohmann::json::parse(in);
}

}  // namespace ironhold::test::bcc

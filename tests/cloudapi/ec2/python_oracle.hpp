#pragma once
// Runs one of the python oracles of this folder (botocore scripts) with /usr/bin/python3: the
// input JSON goes in a temporary file named as the script's argument, the answer is its stdout.
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "inventory/util/process.hpp"
#include "tests/cloudapi/ec2/ec2_test_files.hpp"

namespace ironhold::test::ec2 {

// Whether /usr/bin/python3 can import botocore (the Debian package); tests WARN and skip without.
inline bool botocore_available() {
  static const bool available = [] {
    if (!std::filesystem::exists("/usr/bin/python3")) return false;
    const auto result = util::run_process("/usr/bin/python3", {"-c", "import botocore"});
    return result.ok();
  }();
  return available;
}

inline nlohmann::json run_python_oracle(const std::string& script, const nlohmann::json& input,
                                        const std::vector<std::string>& extra_args = {}) {
  static std::atomic<int> counter{0};
  const auto path = std::filesystem::temp_directory_path() /
                    ("ironhold-ec2-oracle-" + std::to_string(::getpid()) + "-" +
                     std::to_string(counter++) + ".json");
  {
    std::ofstream out(path, std::ios::binary);
    out << input.dump();
  }
  std::vector<std::string> args{oracle_script(script).string(), path.string()};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  util::ProcessOptions options;
  options.timeout = std::chrono::seconds(60);
  const auto result = util::run_process("/usr/bin/python3", args, options);
  std::filesystem::remove(path);
  INFO("python oracle " << script << " " << result.status_text() << ": " << result.err);
  REQUIRE(result.ok());
  return nlohmann::json::parse(result.out);
}

}  // namespace ironhold::test::ec2

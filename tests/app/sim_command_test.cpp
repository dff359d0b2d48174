// `ironhold sim redfish` as a process: one JSON line per BMC on stdout, a clean exit on SIGTERM.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "inventory/util/concat.hpp"
#include "tests/support/server/child_process.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace sim_command_test {

using namespace ironhold::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {
// The shared assets sit beside the clone (../shared), as on CI.
const fs::path shared_dir = fs::path(__FILE__).parent_path() / ".." / ".." / ".." / "shared";
}  // namespace

TEST_CASE("sim redfish prints one JSON line per BMC and stops on SIGTERM", "[app][sim]") {
  const fs::path mockup = shared_dir / "redfish-mockups" / "public-rackmount1";
  if (!fs::exists(mockup / "index.json")) {
    WARN("skipped: no Redfish mockups at " << mockup.string());
    return;
  }
  const fs::path out_file =
      fs::temp_directory_path() / ("ih-sim-" + std::to_string(::getpid()) + ".out");
  // ChildProcess keeps stderr: swap the streams so the file gets stdout (the JSON lines) alone.
  const std::string command = std::string("exec '") + IRONHOLD_BINARY +
                              "' sim redfish --count 2 --listen 127.0.0.1:0 --mockup '" +
                              mockup.string() + "' 1>&2 2>/dev/null";
  ChildProcess sim("/bin/sh", {"-c", command}, out_file);
  REQUIRE(sim.wait_for_line("\"endpoint\"", 60s));
  // Both lines are written at once; give the second one a moment anyway.
  std::vector<nlohmann::json> lines;
  for (int attempt = 0; attempt < 50 && lines.size() < 2; ++attempt) {
    lines.clear();
    std::istringstream text(sim.stderr_text());
    for (std::string line; std::getline(text, line);) lines.push_back(nlohmann::json::parse(line));
    if (lines.size() < 2) ::usleep(100'000);
  }
  REQUIRE(lines.size() == 2);
  for (const auto& line : lines) {
    CHECK(line["endpoint"].get<std::string>().rfind("https://127.0.0.1:", 0) == 0);
    CHECK(line["username"] == "admin");
    CHECK(line["password"] == "password");
  }
  CHECK(lines[0]["endpoint"] != lines[1]["endpoint"]);
  CHECK(sim.stderr_text().rfind("{\"endpoint\": \"https://127.0.0.1:", 0) == 0);
  sim.signal(SIGTERM);
  const auto status = sim.wait(10s);
  REQUIRE(status);
  CHECK(*status == 0);
  fs::remove(out_file);
}

TEST_CASE("sim ipmi prints one ipmi:// JSON line per BMC and stops on SIGTERM",
          "[app][sim][ipmi]") {
  const fs::path out_file =
      fs::temp_directory_path() / ("ih-sim-ipmi-" + std::to_string(::getpid()) + ".out");
  // Stdout (the JSON lines) into the file ChildProcess keeps; the log to /dev/null.
  const std::string command =
      std::string("exec '") + IRONHOLD_BINARY +
      "' sim ipmi --count 3 --listen 127.0.0.1:0 --user root --password s3cret 1>&2 2>/dev/null";
  ChildProcess sim("/bin/sh", {"-c", command}, out_file);
  REQUIRE(sim.wait_for_line("\"endpoint\"", 60s));
  std::vector<nlohmann::json> lines;
  for (int attempt = 0; attempt < 50 && lines.size() < 3; ++attempt) {
    lines.clear();
    std::istringstream text(sim.stderr_text());
    for (std::string line; std::getline(text, line);) lines.push_back(nlohmann::json::parse(line));
    if (lines.size() < 3) ::usleep(100'000);
  }
  REQUIRE(lines.size() == 3);
  std::set<std::string> endpoints;
  for (const auto& line : lines) {
    CHECK(line["endpoint"].get<std::string>().rfind("ipmi://127.0.0.1:", 0) == 0);
    CHECK(line["username"] == "root");
    CHECK(line["password"] == "s3cret");
    endpoints.insert(line["endpoint"].get<std::string>());
  }
  CHECK(endpoints.size() == 3);
  sim.signal(SIGTERM);
  const auto status = sim.wait(10s);
  REQUIRE(status);
  CHECK(*status == 0);
  fs::remove(out_file);
}

TEST_CASE("sim ipmi refuses a bad --listen and a password longer than IPMI allows",
          "[app][sim][ipmi]") {
  const fs::path out_file =
      fs::temp_directory_path() / ("ih-sim-ipmi-bad-" + std::to_string(::getpid()) + ".out");
  for (const std::string args :
       {"--listen nowhere", "--password 123456789012345678901", "--count 0"}) {
    ChildProcess sim("/bin/sh",
                     {"-c", ironhold::util::concat("exec '", IRONHOLD_BINARY, "' sim ipmi ", args)},
                     out_file);
    const auto status = sim.wait(20s);
    REQUIRE(status);
    CHECK(*status != 0);  // 2 for usage errors, 1 for an address that cannot be used
    CHECK(sim.stderr_text().find("error:") != std::string::npos);
  }
  fs::remove(out_file);
}

}  // namespace sim_command_test

// openstacksdk (Debian's python3-openstacksdk 0.101), a client we did not write, logs in to the
// simulator, lists its servers and stops one: the simulator's shapes are what OpenStack clients
// expect.
#include <catch2/catch.hpp>
#include <filesystem>

#include "inventory/util/process.hpp"
#include "tests/cloudapi/openstack/sim_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace sdk_oracle_test {

using namespace ironhold::test::openstack;
using nlohmann::json;

namespace {

const std::filesystem::path kPython = "/usr/bin/python3";

bool have_openstacksdk() {
  if (!std::filesystem::exists(kPython)) return false;
  const auto probe = ironhold::util::run_process(kPython, {"-c", "import openstack"});
  return probe.ok();
}

}  // namespace

TEST_CASE("openstacksdk lists the simulator's servers and stops one", "[openstack][cloudapi]") {
  if (!have_openstacksdk()) {
    WARN("python3-openstacksdk is not installed; skipped");
    return;
  }
  ironhold::sim::cloud::openstack::OpenStackSimulatorOptions options;
  options.transition = std::chrono::minutes(10);
  SimFixture fx(options);
  const json before = fx.call("GET", "/_sim/instances").doc();
  std::string running;
  for (const auto& s : before["instances"])
    if (s["status"] == "ACTIVE" && running.empty()) running = s["id"];
  REQUIRE_FALSE(running.empty());

  const std::string script =
      std::string(IRONHOLD_SOURCE_DIR) + "/tests/cloudapi/openstack/sdk_list.py";
  ironhold::util::ProcessOptions process;
  process.timeout = std::chrono::seconds(60);
  process.environment = ironhold::util::environment_without(
      {"OS_", "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"});
  const auto result = ironhold::util::run_process(
      kPython, {script, fx.auth_url(), "admin", "openstack", "gpu-team", "RegionOne", running},
      process);
  INFO(result.err);
  REQUIRE(result.ok());
  const json out = json::parse(result.out, nullptr, false);
  REQUIRE(out.is_object());

  // The SDK saw every server the simulator holds, with the same names and statuses.
  REQUIRE(out["servers"].size() == before["instances"].size());
  for (std::size_t i = 0; i < out["servers"].size(); ++i) {
    CHECK(out["servers"][i]["id"] == before["instances"][i]["id"]);
    CHECK(out["servers"][i]["name"] == before["instances"][i]["name"]);
    CHECK(out["servers"][i]["status"] == before["instances"][i]["status"]);
    CHECK(out["servers"][i]["flavor"] == before["instances"][i]["flavor"]);
  }
  // Its stop reached the simulator: the server is powering off.
  CHECK(out["stopped"] == running);
  const json after = fx.call("GET", "/_sim/instances").doc();
  for (const auto& s : after["instances"])
    if (s["id"] == running) CHECK(s["task_state"] == "powering-off");
}

}  // namespace sdk_oracle_test

// `ironhold power|boot|identify|task` as a script runs them: the real binary against a real
// service and a simulated Redfish BMC; exit codes, plain progress lines (stdout is not a
// terminal here) and JSON output.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/redfish/fleet.hpp"
#include "tests/app/cli_run.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cli_task_test {

#ifdef IRONHOLD_BINARY
using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

struct Setup {
  sim::RedfishFleet fleet{[] {
    sim::RedfishFleetOptions o;
    o.mockup_dir = project_mockup("hgx-gpu-server");
    o.count = 2;
    o.reset_delay = 300ms;
    return o;
  }()};
  TestServer server;
  std::string token;

  Setup() {
    fleet.start();
    token = server.token("operator");
    for (int i = 0; i < 2; ++i) {
      const auto res =
          http_send(server.port(), "POST", "/api/v1/nodes",
                    {{"name", "gpu-0" + std::to_string(i + 1)},
                     {"driver", "redfish"},
                     {"endpoint", fleet.endpoint(i)},
                     {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                    token);
      REQUIRE(res.status == 201);
    }
  }

  Run cli(std::vector<std::string> args) {
    args.insert(args.end(), {"--url", server.url()});
    return run_cli(std::move(args), {{"IRONHOLD_TOKEN", token}});
  }
};

}  // namespace

TEST_CASE("ironhold power --wait follows every task and exits 0 when all succeeded",
          "[cli][tasks]") {
  Setup s;
  const Run off = s.cli({"power", "off", "gpu-01", "gpu-02", "--wait"});
  INFO("stdout: " << off.out << "\nstderr: " << off.err);
  CHECK(off.status == 0);
  CHECK(contains(off.out, "gpu-01  power off  succeeded"));
  CHECK(contains(off.out, "gpu-02  power off  succeeded"));
  for (std::size_t i = 0; i < 2; ++i)
    CHECK(s.fleet.describe(i)["systems"][0]["power_state"] == "Off");

  // One node the server does not know: the others still run, the exit status says it failed.
  const Run mixed = s.cli({"power", "on", "gpu-01", "no-such-node", "--wait"});
  CHECK(mixed.status == 1);
  CHECK(contains(mixed.err, "no-such-node"));
  CHECK(contains(mixed.out, "gpu-01  power on  succeeded"));

  // JSON for scripts: the tasks as they ended.
  const Run cycle = s.cli({"power", "cycle", "gpu-01", "--wait", "-o", "json"});
  REQUIRE(cycle.status == 0);
  const json tasks = json::parse(cycle.out);
  REQUIRE(tasks.size() == 1);
  CHECK(tasks[0]["state"] == "succeeded");
  CHECK(tasks[0]["parameters"]["action"] == "cycle");
}

TEST_CASE("ironhold power --wait exits 1 when a task fails, naming why", "[cli][tasks]") {
  Setup s;
  sim::redfish::Faults faults;
  faults.ignore_resets = true;
  s.fleet.set_faults(0, faults);
  const Run r = s.cli({"power", "off", "gpu-01", "--wait", "--timeout", "5"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.status == 1);
  CHECK(contains(r.out, "gpu-01  power off  failed: the node did not become off within 5 s"));
}

TEST_CASE("ironhold boot, identify and task show|list|cancel", "[cli][tasks]") {
  Setup s;
  const Run boot = s.cli({"boot", "gpu-02", "--device", "pxe", "--persistent", "--wait"});
  INFO("stdout: " << boot.out << "\nstderr: " << boot.err);
  CHECK(boot.status == 0);
  CHECK(contains(boot.out, "gpu-02  boot pxe persistent  succeeded"));
  const Run identify = s.cli({"identify", "gpu-02", "--on", "-o", "json"});
  REQUIRE(identify.status == 0);
  const std::string id = json::parse(identify.out)[0]["id"];

  const Run list = s.cli({"task", "list", "--node", "gpu-02", "-o", "json"});
  REQUIRE(list.status == 0);
  CHECK(json::parse(list.out).size() == 2);
  const Run table = s.cli({"task", "list", "--kind", "boot"});
  CHECK(contains(table.out, "boot pxe persistent"));

  const Run show = s.cli({"task", "show", id});
  CHECK(show.status == 0);
  CHECK(contains(show.out, "identify on"));

  // Once it has ended, there is nothing to cancel.
  for (int i = 0; i < 300; ++i) {
    const Run now = s.cli({"task", "show", id, "-o", "json"});
    if (json::parse(now.out)["finished_at"].is_string()) break;
    std::this_thread::sleep_for(100ms);
  }
  const Run cancel = s.cli({"task", "cancel", id});
  CHECK(cancel.status == 1);
  CHECK(contains(cancel.err, "already ended"));

  const Run usage = s.cli({"identify", "gpu-02"});
  CHECK(usage.status == 2);
  CHECK(contains(usage.err, "--on or --off"));
}
TEST_CASE("ironhold bulk selects nodes like the node list and follows their tasks",
          "[cli][tasks][bulk]") {
  Setup s;
  const Run dry =
      s.cli({"bulk", "--selector", "names=gpu-01,names=gpu-02", "--dry-run", "power", "off"});
  INFO("stdout: " << dry.out << "\nstderr: " << dry.err);
  CHECK(dry.status == 0);
  CHECK(contains(dry.out, "2 nodes match"));
  const Run off = s.cli({"bulk", "--selector", "names=gpu-01,names=gpu-02", "--max-parallel", "1",
                         "--wait", "power", "off"});
  INFO("stdout: " << off.out << "\nstderr: " << off.err);
  CHECK(off.status == 0);
  CHECK(contains(off.out, "2 nodes matched"));
  CHECK(contains(off.out, "gpu-01  power off  succeeded"));
  CHECK(contains(off.out, "gpu-02  power off  succeeded"));
  const Run no_selector = s.cli({"bulk", "power", "off"});
  CHECK(no_selector.status == 2);
  CHECK(contains(no_selector.err, "--selector"));
  const Run empty = s.cli({"bulk", "--selector", "rack=", "power", "off"});
  CHECK(empty.status == 1);  // the server refuses a selector that selects nothing by name
  const Run bad = s.cli({"bulk", "--selector", "rack=R1", "dance"});
  CHECK(bad.status == 2);
  // An owned server never reprovisioned needs its image named: the server says so.
  s.server.database().execute("UPDATE nodes SET lifecycle = 'available' WHERE name = 'gpu-01'");
  const Run reprovision = s.cli({"reprovision", "gpu-01"});
  CHECK(reprovision.status == 1);
  INFO(reprovision.err);
  CHECK(contains(reprovision.err, "name its image"));
  const Run bad_image = s.cli({"reprovision", "gpu-01", "--image", "ubuntu"});
  CHECK(bad_image.status == 1);
  CHECK(contains(bad_image.err, "http://"));
}
#endif  // IRONHOLD_BINARY

}  // namespace cli_task_test

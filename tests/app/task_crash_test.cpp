// kill -9 of `ironhold serve` in the middle of a bulk power cycle of 200 simulated Redfish BMCs,
// then a restart on the same data directory: every task ends, none is left running or lost, and
// every BMC received exactly one reset (read from the simulators' own counters) — a task that
// was caught between recording "sending" and recording the answer decided from the BMC's reset
// time whether to send again, and says so.
#include <signal.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <thread>

#include "sim/redfish/fleet.hpp"
#include "tests/app/ironhold_process.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/test_cluster.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace task_crash_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr int kNodes = 200;

IronholdProcess start_serve(const fs::path& data, const fs::path& log) {
  // No poller: only the tasks talk to the BMCs, so their counters count the tasks' requests.
  return start_ironhold({"serve", "--data-dir", data.string(), "--listen", "127.0.0.1:0",
                         "--no-poller", "--task-lease", "5", "--shutdown-grace", "1000"},
                        log);
}

json bulk_tasks(unsigned short port, const std::string& token, const std::string& bulk_id) {
  const auto res = http_get(port, "/api/v1/tasks?limit=1000&bulk_id=" + bulk_id, token);
  REQUIRE(res.status == 200);
  return res.json()["items"];
}

std::map<std::string, int> count_states(const json& tasks) {
  std::map<std::string, int> n;
  for (const auto& t : tasks) ++n[t["state"].get<std::string>()];
  return n;
}

unsigned resets_received(sim::RedfishFleet& fleet, std::size_t i) {
  const json counters = fleet.describe(i)["counters"]["resets"];
  unsigned n = 0;
  for (const auto& [type, count] : counters.items()) n += count.get<unsigned>();
  return n;
}

}  // namespace

TEST_CASE("a kill -9 during a bulk power cycle of 200 BMCs loses no task and repeats no reset",
          "[app][tasks][crash]") {
  // Removed at the end, a REQUIRE failing or not, with the cluster it relocated.
  const ironhold::test::TempDir scratch("ih-crash");
  const fs::path& home = scratch.path();
  const fs::path data = home / "data";

  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("compute-server");
  o.count = kNodes;
  o.reset_delay = 1000ms;  // a cycle takes a couple of seconds: the kill lands mid-way
  sim::RedfishFleet fleet(o);
  fleet.start();

  auto serve = start_serve(data, home / "serve1.log");
  const std::string token = admin_token(data, "crash-test");
  for (int i = 0; i < kNodes; ++i) {
    const auto res = http_send(serve.port, "POST", "/api/v1/nodes",
                               {{"name", "c-" + std::to_string(i)},
                                {"driver", "redfish"},
                                {"endpoint", fleet.endpoint(i)},
                                {"credentials", {{"username", "admin"}, {"password", "password"}}},
                                {"location", {{"rack", "crash"}}}},
                               token);
    REQUIRE(res.status == 201);
  }
  const auto started = std::chrono::steady_clock::now();
  const auto bulk = http_send(serve.port, "POST", "/api/v1/actions",
                              {{"selector", {{"rack", "crash"}}},
                               {"action", "power"},
                               {"parameters", {{"action", "cycle"}}},
                               {"max_parallel", 50}},
                              token);
  INFO(bulk.body);
  REQUIRE(bulk.status == 202);
  REQUIRE(bulk.json()["matched"] == kNodes);
  const std::string bulk_id = bulk.json()["bulk_id"];

  // Kill it once some tasks have ended and others are under way.
  std::map<std::string, int> before;
  for (int i = 0; i < 600; ++i) {
    before = count_states(bulk_tasks(serve.port, token, bulk_id));
    if (before["succeeded"] >= 20) break;
    std::this_thread::sleep_for(100ms);
  }
  serve.process->signal(SIGKILL);
  REQUIRE(serve.process->wait(30s) == -SIGKILL);
  INFO("at the kill: " << json(before).dump());
  CHECK(before["succeeded"] < kNodes);

  auto again = start_serve(data, home / "serve2.log");
  json tasks;
  for (int i = 0; i < 1800; ++i) {
    tasks = bulk_tasks(again.port, token, bulk_id);
    auto n = count_states(tasks);
    if (n["queued"] + n["running"] == 0) break;
    std::this_thread::sleep_for(100ms);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  auto after = count_states(tasks);
  INFO("after the restart: " << json(after).dump() << " in " << seconds << " s");
  REQUIRE(tasks.size() == kNodes);
  CHECK(after.at("succeeded") == kNodes);

  int resumed = 0, in_doubt = 0;
  for (const auto& t : tasks) {
    resumed += t["attempts"].get<int>() > 1;
    for (const auto& s : t["steps"])
      if (s.contains("in_doubt")) ++in_doubt;
  }
  CHECK(resumed > 0);  // the kill left tasks for the restarted instance
  for (int i = 0; i < kNodes; ++i) {
    INFO("BMC " << i);
    CHECK(resets_received(fleet, static_cast<std::size_t>(i)) == 1);
  }
  WARN("200-node bulk power cycle with a kill -9 and a restart: "
       << seconds << " s; " << resumed << " tasks resumed, " << in_doubt
       << " in doubt and resolved from the BMC");
  again.process->signal(SIGTERM);
  CHECK(again.process->wait(60s) == 0);
}

}  // namespace task_crash_test

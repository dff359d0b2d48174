// kill -9 of `ironhold serve` in the middle of a firmware rollout to 20 simulated Redfish servers,
// then a restart on the same data directory and address: the rollout carries on from where it
// was and succeeds, every firmware task ends, and every BMC accepted the image exactly once (its
// own counter, read from the simulator) — a task caught between recording "sending" and the
// BMC's answer found the BMC's task for its URL and followed it instead of flashing again.
#include <signal.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <thread>

#include "inventory/util/concat.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/app/ironhold_process.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/test_cluster.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace rollout_crash_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr int kNodes = 20;

IronholdProcess start_serve(const fs::path& data, const fs::path& log, const std::string& listen) {
  // No poller: only the tasks talk to the BMCs. The same address on both runs, as a service has:
  // the BMCs download from it.
  return start_ironhold({"serve", "--data-dir", data.string(), "--listen", listen, "--no-poller",
                         "--task-lease", "5", "--shutdown-grace", "1000"},
                        log);
}

json rollout_of(unsigned short port, const std::string& token, const std::string& id) {
  const auto res = http_get(port, "/api/v1/firmware/rollouts/" + id, token);
  REQUIRE(res.status == 200);
  return res.json();
}

}  // namespace

TEST_CASE("a kill -9 during a firmware rollout loses no task and flashes no BMC twice",
          "[app][tasks][firmware][crash]") {
  // Removed at the end, a REQUIRE failing or not, with the cluster it relocated.
  const ironhold::test::TempDir scratch("ih-rollout-crash");
  const fs::path& home = scratch.path();
  const fs::path data = home / "data";

  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("compute-server");
  o.count = kNodes;
  o.updater.update_time = 3000ms;  // each update takes a while: the kill lands mid-batch
  sim::RedfishFleet fleet(o);
  fleet.start();

  auto serve = start_serve(data, home / "serve1.log", "127.0.0.1:0");
  const std::string listen = "127.0.0.1:" + std::to_string(serve.port);
  const std::string token = admin_token(data, "crash-test");
  for (int i = 0; i < kNodes; ++i) {
    const auto res = http_send(
        serve.port, "POST", "/api/v1/nodes",
        {{"name", "fw-" + std::to_string(i)},
         {"driver", "redfish"},
         {"endpoint", fleet.endpoint(i)},
         {"credentials", {{"username", "admin"}, {"password", "password"}}},
         {"location",
          {{"site", "lab"}, {"rack", ironhold::util::concat("r", std::to_string(i % 4))}}}},
        token);
    REQUIRE(res.status == 201);
  }
  std::string bytes = "IRONHOLD-FIRMWARE component=BMC version=99.0.0-crash\n";
  bytes.resize(500'000, 'x');
  HttpRequest upload;
  upload.method = "POST";
  upload.target = "/api/v1/firmware/images?name=bmc-99.bin&version=99.0.0-crash&component=BMC";
  upload.body = bytes;
  upload.token = token;
  upload.content_type = "application/octet-stream";
  const auto image = http_request(serve.port, upload);
  REQUIRE(image.status == 201);

  const auto started = std::chrono::steady_clock::now();
  const auto rollout = http_send(serve.port, "POST", "/api/v1/firmware/rollouts",
                                 {{"image", image.json()["id"]},
                                  {"selector", {{"site", "lab"}}},
                                  {"canary", 2},
                                  {"batch_size", 9},
                                  {"max_parallel_per_rack", 3},
                                  {"health_gate_seconds", 0}},
                                 token);
  INFO(rollout.body);
  REQUIRE(rollout.status == 201);
  const std::string id = rollout.json()["id"];

  // Kill it once the canaries are through and a worker has claimed tasks of the first batch: a
  // node the rollout counts as "updating" may only have a queued task, which a kill leaves
  // untouched (attempts 0), so the claim is read from the tasks themselves.
  json before;
  for (int i = 0; i < 1200; ++i) {
    before = rollout_of(serve.port, token, id);
    const auto running =
        http_get(serve.port, "/api/v1/tasks?kind=firmware&state=running&limit=100", token);
    REQUIRE(running.status == 200);
    if (before["counts"]["succeeded"] >= 2 && running.json()["items"].size() >= 1) break;
    std::this_thread::sleep_for(100ms);
  }
  serve.process->signal(SIGKILL);
  REQUIRE(serve.process->wait(30s) == -SIGKILL);
  INFO("at the kill: " << before["counts"].dump());
  REQUIRE(before["state"] == "running");
  CHECK(before["counts"]["succeeded"] < kNodes);

  auto again = start_serve(data, home / "serve2.log", listen);
  json after;
  for (int i = 0; i < 2400; ++i) {
    after = rollout_of(again.port, token, id);
    if (after["state"] != "running") break;
    std::this_thread::sleep_for(100ms);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  INFO("after the restart: " << after.dump(2));
  CHECK(after["state"] == "succeeded");
  CHECK(after["counts"]["succeeded"] == kNodes);

  const auto listed = http_get(again.port, "/api/v1/tasks?kind=firmware&limit=1000", token);
  REQUIRE(listed.status == 200);
  const json tasks = listed.json()["items"];
  CHECK(tasks.size() == kNodes);
  int resumed = 0, in_doubt = 0;
  for (const auto& t : tasks) {
    CHECK(t["state"] == "succeeded");
    resumed += t["attempts"].get<int>() > 1;
    for (const auto& s : t["steps"])
      if (s.contains("in_doubt")) ++in_doubt;
  }
  CHECK(resumed > 0);  // the kill left tasks for the restarted instance
  for (int i = 0; i < kNodes; ++i) {
    INFO("BMC " << i);
    const json counters = fleet.describe(static_cast<std::size_t>(i))["counters"];
    CHECK(counters["firmware_updates"] == 1);
    CHECK(counters["updates_completed"] == 1);
  }
  WARN("20-node firmware rollout with a kill -9 and a restart: "
       << seconds << " s; " << resumed << " tasks resumed, " << in_doubt
       << " in doubt and resolved from the BMC");
  again.process->signal(SIGTERM);
  CHECK(again.process->wait(60s) == 0);
}

}  // namespace rollout_crash_test

// `ironhold keys rotate` while `ironhold serve` runs on the same data directory: every credential
// is re-sealed under a new master key, the key file ends with the new key alone, the running
// service keeps reaching the BMC with the credentials (a power task after the rotation succeeds),
// the rotation is in the audit trail, and the service starts again on the new key.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "inventory/util/process.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/app/ironhold_process.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/test_cluster.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace keys_rotate_test {

#ifdef IRONHOLD_BINARY
using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

IronholdProcess start_serve(const fs::path& data_dir, const fs::path& log_file) {
  return start_ironhold({"serve", "--data-dir", data_dir.string(), "--listen", "127.0.0.1:0",
                         "--shutdown-grace", "2000", "--poll-status-interval", "2"},
                        log_file);
}

// Waits for the task to end; returns its final state.
std::string wait_for_task(unsigned short port, const std::string& token, const std::string& id) {
  const auto until = std::chrono::steady_clock::now() + 90s;
  std::string state;
  while (std::chrono::steady_clock::now() < until) {
    state = http_get(port, "/api/v1/tasks/" + id, token).json()["state"];
    if (state == "succeeded" || state == "failed" || state == "cancelled") return state;
    std::this_thread::sleep_for(200ms);
  }
  return state;
}

std::string power_cycle(unsigned short port, const std::string& token) {
  const auto res =
      http_send(port, "POST", "/api/v1/nodes/gpu-r1/power", {{"action", "cycle"}}, token);
  INFO(res.body);
  REQUIRE(res.status == 202);
  return res.json()["id"];
}

}  // namespace

TEST_CASE("keys rotate re-seals every credential while the service keeps using them",
          "[app][keys][rotation]") {
  sim::RedfishFleet fleet([] {
    sim::RedfishFleetOptions o;
    o.mockup_dir = project_mockup("hgx-gpu-server");
    o.count = 1;
    o.reset_delay = 200ms;
    return o;
  }());
  fleet.start();
  // Removed at the end, a REQUIRE failing or not, with the cluster it relocated.
  const ironhold::test::TempDir scratch("ih-keys");
  const fs::path& home = scratch.path();
  const fs::path data = home / "data";
  auto served = start_serve(data, home / "serve1.log");
  auto made = util::run_process(IRONHOLD_BINARY, {"token", "create", "--data-dir", data.string(),
                                                  "--role", "admin", "--name", "rotator"});
  REQUIRE(made.ok());
  const std::string token = made.out.substr(0, made.out.size() - 1);
  const auto enrolled =
      http_send(served.port, "POST", "/api/v1/nodes",
                {{"name", "gpu-r1"},
                 {"driver", "redfish"},
                 {"endpoint", fleet.endpoint(0)},
                 {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                token);
  REQUIRE(enrolled.status == 201);
  REQUIRE(wait_for_task(served.port, token, power_cycle(served.port, token)) == "succeeded");
  const std::string key_before = read_text(data / "master.key");

  auto rotated =
      util::run_process(IRONHOLD_BINARY, {"keys", "rotate", "--data-dir", data.string()});
  INFO(rotated.err);
  REQUIRE(rotated.ok());
  CHECK(rotated.err.find("re-sealed 1 BMC credentials") != std::string::npos);
  const std::string key_after = read_text(data / "master.key");
  CHECK(key_after != key_before);
  CHECK(key_after.size() == 65);  // one key: the old one is gone
  CHECK(key_after.find(key_before.substr(0, 64)) == std::string::npos);

  // The running service opens the re-sealed credentials: the task reaches the BMC again.
  CHECK(wait_for_task(served.port, token, power_cycle(served.port, token)) == "succeeded");
  const auto audit =
      http_get(served.port, "/api/v1/audit?action=keys.rotate", token).json()["items"];
  REQUIRE(audit.size() == 2);
  CHECK(audit[0]["outcome"] == "ok");
  CHECK(audit[1]["outcome"] == "started");
  CHECK(audit[0]["details"]["resealed"]["node_credentials"] == 1);
  CHECK(audit[0]["details"].dump().find(key_after.substr(0, 64)) == std::string::npos);
  CHECK(http_get(served.port, "/api/v1/audit/verify", token).json()["ok"] == true);

  served.process->signal(SIGTERM);
  REQUIRE(served.process->wait(60s) == 0);
  auto again = start_serve(data, home / "serve2.log");
  CHECK(wait_for_task(again.port, token, power_cycle(again.port, token)) == "succeeded");
  again.process->signal(SIGTERM);
  CHECK(again.process->wait(60s) == 0);
}
#endif

}  // namespace keys_rotate_test

// The whole path for an IPMI-only server: Ironhold's simulated IPMI BMC over real UDP, the IPMI
// driver, the poller with its schedule in a real PostgreSQL, and the API over real HTTP. Expected
// values come from the simulated BMC's own state (what it would tell any client), not from the
// driver.
#include <catch2/catch.hpp>
#include <thread>

#include "sim/ipmi/fleet.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "tests/web/poller/poller_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ipmi_poller_e2e_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

std::string enroll(TestServer& server, const std::string& token, const std::string& name,
                   const std::string& endpoint, const std::string& password) {
  const auto res = http_send(server.port(), "POST", "/api/v1/nodes",
                             {{"name", name},
                              {"driver", "ipmi"},
                              {"endpoint", endpoint},
                              {"options", {{"cipher_suites", {17, 3}}}},
                              {"credentials", {{"username", "admin"}, {"password", password}}}},
                             token);
  INFO(res.body);
  REQUIRE(res.status == 201);
  return res.json()["id"];
}

}  // namespace

TEST_CASE("an IPMI-only server fills the inventory through the poller", "[poller][e2e][ipmi]") {
  sim::IpmiFleetOptions options;
  options.listen = "127.0.87.1:0";
  sim::IpmiFleet fleet(options);
  fleet.start();
  TestServer server({}, {}, fast_poller());
  const auto token = server.token("operator");
  const std::string id = enroll(server, token, "old-rack-u1", fleet.endpoint(0), "password");

  const json node = wait_for_node(server, token, id, [](const json& n) {
    return !n["last_inspected"].is_null() && n["power_state"] != "unknown";
  });
  INFO(node.dump(2));
  const json bmc = fleet.describe(0);
  CHECK(node["reachable"] == true);
  CHECK(node["last_error"].is_null());
  CHECK(node["manufacturer"] == bmc["fru"]["manufacturer"]);
  CHECK(node["model"] == bmc["fru"]["product"]);
  CHECK(node["serial"] == bmc["fru"]["product_serial"]);
  CHECK(node["power_state"] == (fleet.state(0).power_on() ? "on" : "off"));

  const auto sensors =
      http_get(server.port(), "/api/v1/nodes/" + id + "/sensors", token).json()["items"];
  CHECK(sensors.size() == fleet.state(0).sensors().size());
  const auto firmware =
      http_get(server.port(), "/api/v1/nodes/" + id + "/firmware", token).json()["items"];
  REQUIRE(firmware.size() >= 1);
  CHECK(firmware[0]["component"] == "BMC");
  const auto components =
      http_get(server.port(), "/api/v1/nodes/" + id + "/components", token).json()["items"];
  bool board = false;
  for (const auto& c : components)
    board = board || (c["slot"] == "fru0/board" && c["serial"] == bmc["fru"]["board_serial"]);
  CHECK(board);

  // The BMC's power changes show in the next status poll.
  const bool was_on = fleet.state(0).power_on();
  fleet.state(0).set_power(was_on ? "off" : "on");
  const json changed = wait_for_node(server, token, id, [&](const json& n) {
    return n["power_state"] == (was_on ? "off" : "on");
  });
  CHECK(changed["power_state"] == (was_on ? "off" : "on"));
}

TEST_CASE("an IPMI BMC that rejects the password shows auth_failed, without a login storm",
          "[poller][e2e][ipmi]") {
  sim::IpmiFleetOptions options;
  options.listen = "127.0.87.2:0";
  sim::IpmiFleet fleet(options);
  fleet.start();
  TestServer server({}, {}, fast_poller());
  const auto token = server.token("operator");
  const std::string id = enroll(server, token, "old-rack-u2", fleet.endpoint(0), "wrong");
  const json node = wait_for_node(server, token, id,
                                  [](const json& n) { return n["last_error"] == "auth_failed"; });
  CHECK(node["last_error"] == "auth_failed");
  // Polls go on every second, but the credentials are not tried again: one failed login.
  std::this_thread::sleep_for(4s);
  CHECK(fleet.describe(0)["counters"]["logins_failed"] == 1);
}

}  // namespace ipmi_poller_e2e_test

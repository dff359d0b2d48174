// Power, boot and identify tasks end to end: a simulated Redfish BMC (the project's own
// hgx-gpu-server mockup) over real HTTPS, the real driver, the task engine with its queue in a
// real PostgreSQL, and the API over real HTTP. What the BMC received is read from the simulator's
// own counters; what it allows is read from the mockup file.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/web/tasks/fleet_helpers.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace power_task_e2e_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path mockup_dir = project_mockup("hgx-gpu-server");

json system_document() {
  std::ifstream in(mockup_dir / "Systems" / "HGX_0" / "index.json");
  return json::parse(in);
}

bool reset_allowed(const std::string& type) {
  const json system = system_document();  // the range below must not outlive its document
  for (const auto& v :
       system["Actions"]["#ComputerSystem.Reset"]["ResetType@Redfish.AllowableValues"])
    if (v == type) return true;
  return false;
}

sim::RedfishFleetOptions fleet_options(unsigned count = 1) {
  sim::RedfishFleetOptions o;
  o.mockup_dir = mockup_dir;
  o.count = count;
  o.reset_delay = 300ms;
  return o;
}

unsigned resets(sim::RedfishFleet& fleet, std::size_t i, const std::string& type) {
  const json counters = fleet.describe(i)["counters"]["resets"];
  return counters.value(type, 0u);
}

std::string sim_power(sim::RedfishFleet& fleet, std::size_t i) {
  return fleet.describe(i)["systems"][0]["power_state"];
}

std::vector<std::string> step_names(const json& task) {
  std::vector<std::string> out;
  for (const auto& s : task["steps"]) out.push_back(s["name"]);
  return out;
}

}  // namespace

TEST_CASE("power tasks send the action once and verify the state the BMC reports", "[tasks][e2e]") {
  sim::RedfishFleet fleet(fleet_options());
  fleet.start();
  TestServer server;
  const auto token = server.token("operator");
  const std::string node = enroll_redfish(server, token, "gpu-01", fleet.endpoint(0));
  REQUIRE(system_document()["PowerState"] == "On");

  // off: check → send → verify, and the simulator is off.
  const json off =
      wait_task_end(server, token, start_task(server, token, node, "power", {{"action", "off"}}));
  INFO(off.dump(2));
  REQUIRE(off["state"] == "succeeded");
  CHECK(step_names(off) == std::vector<std::string>{"check", "send", "verify"});
  for (const auto& s : off["steps"]) CHECK(s["state"] == "succeeded");
  CHECK(off["result"]["power_state"] == "off");
  CHECK(off["result"]["sent"] == true);
  CHECK(off["attempts"] == 1);
  CHECK(off["requested_by"].get<std::string>().rfind("operator", 0) == 0);
  CHECK(sim_power(fleet, 0) == "Off");
  CHECK(resets(fleet, 0, "ForceOff") == 1);

  // off again: nothing is sent to a node that is already off.
  const json again = wait_task_end(
      server, token, start_task(server, token, "gpu-01", "power", {{"action", "off"}}));
  REQUIRE(again["state"] == "succeeded");
  CHECK(again["result"]["sent"] == false);
  CHECK(step_of(again, "send")["state"] == "skipped");
  CHECK(all_resets(fleet, 0) == 1);

  const json on =
      wait_task_end(server, token, start_task(server, token, node, "power", {{"action", "on"}}));
  REQUIRE(on["state"] == "succeeded");
  CHECK(sim_power(fleet, 0) == "On");
  CHECK(resets(fleet, 0, "On") == 1);

  // cycle: one reset of the kind the BMC offers, and evidence that it happened.
  const unsigned before = all_resets(fleet, 0);
  const json cycle =
      wait_task_end(server, token, start_task(server, token, node, "power", {{"action", "cycle"}}));
  INFO(cycle.dump(2));
  REQUIRE(cycle["state"] == "succeeded");
  CHECK(cycle["result"]["power_state"] == "on");
  CHECK(cycle["result"].contains("last_reset"));
  CHECK(cycle["result"]["last_reset"] != system_document()["LastResetTime"]);
  CHECK(all_resets(fleet, 0) == before + 1);
  if (reset_allowed("PowerCycle")) CHECK(resets(fleet, 0, "PowerCycle") == 1);

  // The node's history and the audit trail say what was done, by whom and how it ended.
  const auto events =
      http_get(server.port(), "/api/v1/nodes/gpu-01/events?kind=task", token).json();
  CHECK(events["items"].size() == 4);
  const auto tasks =
      http_get(server.port(), "/api/v1/tasks?node=gpu-01&state=succeeded", token).json();
  CHECK(tasks["items"].size() == 4);
  CHECK(tasks["items"][0]["id"] == cycle["id"]);  // newest first
}

TEST_CASE(
    "a BMC that accepts a reset but never changes state fails the task with the last "
    "state seen",
    "[tasks][e2e]") {
  sim::RedfishFleet fleet(fleet_options());
  fleet.start();
  sim::redfish::Faults faults;
  faults.ignore_resets = true;
  fleet.set_faults(0, faults);
  TestServer server;
  const auto token = server.token("operator");
  const std::string node = enroll_redfish(server, token, "gpu-01", fleet.endpoint(0));
  const json task = wait_task_end(
      server, token,
      start_task(server, token, node, "power", {{"action", "off"}, {"timeout_s", 5}}));
  INFO(task.dump(2));
  REQUIRE(task["state"] == "failed");
  CHECK(resets(fleet, 0, "ForceOff") == 1);  // it was sent, once
  const std::string error = task["error"];
  CHECK(error.find("did not become off within 5 s") != std::string::npos);
  CHECK(error.find("last state seen: power on") != std::string::npos);
  CHECK(step_of(task, "verify")["state"] == "failed");

  // A cycle the BMC acknowledges but never performs: no evidence, so it fails too.
  const json cycle = wait_task_end(
      server, token,
      start_task(server, token, node, "power", {{"action", "cycle"}, {"timeout_s", 5}}));
  INFO(cycle.dump(2));
  CHECK(cycle["state"] == "failed");
  CHECK(cycle["error"].get<std::string>().find("by way of a reset") != std::string::npos);
}

TEST_CASE("boot device and identify LED tasks reach the BMC", "[tasks][e2e]") {
  sim::RedfishFleet fleet(fleet_options());
  fleet.start();
  TestServer server;
  const auto token = server.token("operator");
  const std::string node = enroll_redfish(server, token, "gpu-01", fleet.endpoint(0));

  const json boot =
      wait_task_end(server, token, start_task(server, token, node, "boot", {{"device", "pxe"}}));
  INFO(boot.dump(2));
  REQUIRE(boot["state"] == "succeeded");
  CHECK(boot["parameters"] == json{{"device", "pxe"}, {"persistent", false}});
  const json saved = fleet.state(0).saved_state();
  const std::string path = system_document()["@odata.id"];
  CHECK(saved["boot"][path]["BootSourceOverrideTarget"] == "Pxe");
  CHECK(saved["boot"][path]["BootSourceOverrideEnabled"] == "Once");

  const json identify =
      wait_task_end(server, token, start_task(server, token, node, "identify", {{"on", true}}));
  REQUIRE(identify["state"] == "succeeded");
  CHECK(fleet.describe(0)["counters"]["identify_changes"] == 1);
}

TEST_CASE("a node's tasks run one at a time, in the order they were asked for", "[tasks][e2e]") {
  sim::RedfishFleet fleet(fleet_options());
  fleet.start();
  TestServer server;
  const auto token = server.token("operator");
  const std::string node = enroll_redfish(server, token, "gpu-01", fleet.endpoint(0));
  const std::string a = start_task(server, token, node, "power", {{"action", "off"}});
  const std::string b = start_task(server, token, node, "power", {{"action", "on"}});
  const std::string c = start_task(server, token, node, "power", {{"action", "off"}});
  const json ta = wait_task_end(server, token, a);
  const json tb = wait_task_end(server, token, b);
  const json tc = wait_task_end(server, token, c);
  REQUIRE(ta["state"] == "succeeded");
  REQUIRE(tb["state"] == "succeeded");
  REQUIRE(tc["state"] == "succeeded");
  // RFC 3339 UTC with a fixed width compares as text.
  CHECK(tb["started_at"].get<std::string>() >= ta["finished_at"].get<std::string>());
  CHECK(tc["started_at"].get<std::string>() >= tb["finished_at"].get<std::string>());
  CHECK(sim_power(fleet, 0) == "Off");
  CHECK(resets(fleet, 0, "ForceOff") == 2);
  CHECK(resets(fleet, 0, "On") == 1);
}

TEST_CASE("an Idempotency-Key returns the same task, and refuses another body", "[tasks][e2e]") {
  sim::RedfishFleet fleet(fleet_options());
  fleet.start();
  TestServer server;
  const auto token = server.token("operator");
  const std::string node = enroll_redfish(server, token, "gpu-01", fleet.endpoint(0));
  const json body = {{"action", "off"}};
  const auto first = post_action(server, token, node, "power", body, "script-run-42");
  REQUIRE(first.status == 202);
  // The same request again, with its keys in another order and other spacing.
  HttpRequest retry;
  retry.method = "POST";
  retry.target = "/api/v1/nodes/" + node + "/power";
  retry.body = "{ \"action\" : \"off\" }";
  retry.token = token;
  retry.headers["Idempotency-Key"] = "script-run-42";
  const auto second = http_request(server.port(), retry);
  REQUIRE(second.status == 202);
  CHECK(second.json()["id"] == first.json()["id"]);
  CHECK(second.header("idempotent-replayed") == "true");
  const auto other = post_action(server, token, node, "power", {{"action", "on"}}, "script-run-42");
  CHECK(other.status == 422);
  CHECK(other.json()["field"] == "Idempotency-Key");
  // Another token's key is its own.
  const auto other_token =
      post_action(server, server.token("operator"), node, "power", body, "script-run-42");
  REQUIRE(other_token.status == 202);
  CHECK(other_token.json()["id"] != first.json()["id"]);
  wait_task_end(server, token, first.json()["id"]);
  wait_task_end(server, token, other_token.json()["id"]);
  CHECK(resets(fleet, 0, "ForceOff") == 1);  // the second one found the node off already
  const auto bad_key = post_action(server, token, node, "power", body, std::string(300, 'k'));
  CHECK(bad_key.status == 400);
}

TEST_CASE("action requests are checked before any task is made", "[tasks][e2e]") {
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  const auto token = server.token("operator");
  const std::string node = enroll_redfish(server, token, "gpu-01", "https://127.0.0.2:1");
  CHECK(post_action(server, token, "no-such-node", "power", {{"action", "on"}}).status == 404);
  const auto bad = post_action(server, token, node, "power", {{"action", "explode"}});
  CHECK(bad.status == 422);
  CHECK(bad.json()["field"] == "action");
  CHECK(post_action(server, token, node, "power", {{"action", 3}}).status == 400);
  CHECK(post_action(server, token, node, "identify", {{"on", "yes"}}).status == 400);
  CHECK(post_action(server, server.token("viewer"), node, "power", {{"action", "on"}}).status ==
        403);
  const auto tasks = http_get(server.port(), "/api/v1/tasks", token).json();
  CHECK(tasks["items"].empty());
  CHECK(http_get(server.port(), "/api/v1/tasks?state=bogus", token).status == 400);
  CHECK(http_get(server.port(), "/api/v1/tasks/not-a-task", token).status == 404);
}

TEST_CASE("cancelling a queued task, a running one, and an ended one", "[tasks][e2e]") {
  SECTION("queued: cancelled at once, never sent") {
    TestServer server({}, {}, std::nullopt, std::nullopt,
                      std::nullopt);  // no engine: it stays queued
    const auto token = server.token("operator");
    const std::string node = enroll_redfish(server, token, "gpu-01", "https://127.0.0.2:1");
    const std::string id = start_task(server, token, node, "power", {{"action", "off"}});
    const auto res =
        http_send(server.port(), "POST", "/api/v1/tasks/" + id + "/cancel", json::object(), token);
    REQUIRE(res.status == 200);
    CHECK(res.json()["state"] == "cancelled");
    CHECK(res.json()["steps"].empty());
    const auto again =
        http_send(server.port(), "POST", "/api/v1/tasks/" + id + "/cancel", json::object(), token);
    CHECK(again.status == 409);
  }
  SECTION("running: stops at its next wait, saying what was already sent") {
    sim::RedfishFleet fleet(fleet_options());
    fleet.start();
    sim::redfish::Faults faults;
    faults.ignore_resets = true;  // the task waits for a state that never comes
    fleet.set_faults(0, faults);
    TestServer server;
    const auto token = server.token("operator");
    const std::string node = enroll_redfish(server, token, "gpu-01", fleet.endpoint(0));
    const std::string id =
        start_task(server, token, node, "power", {{"action", "off"}, {"timeout_s", 600}});
    const json verifying = wait_task(server, token, id, [](const json& t) {
      const json v = step_of(t, "verify");
      return v.is_object() && v["state"] == "running";
    });
    INFO(verifying.dump(2));
    REQUIRE(step_of(verifying, "verify").is_object());
    const auto res =
        http_send(server.port(), "POST", "/api/v1/tasks/" + id + "/cancel", json::object(), token);
    REQUIRE(res.status == 202);
    CHECK(res.json()["cancel_requested"] == true);
    const json ended = wait_task_end(server, token, id);
    INFO(ended.dump(2));
    CHECK(ended["state"] == "cancelled");
    CHECK(ended["error"].get<std::string>().find("after off had been sent") != std::string::npos);
    CHECK(step_of(ended, "verify")["state"] == "cancelled");
    CHECK(resets(fleet, 0, "ForceOff") == 1);
  }
}

}  // namespace power_task_e2e_test

// BMC credential rotation end to end: a task changes the password of the account Ironhold logs in
// with at a simulated Redfish or IPMI BMC, proves it by a fresh login, and stores it; the node is
// polled with it afterwards. The new password is read from the simulated BMC itself (what its
// administrator would know) and looked for everywhere a secret must not be: the task, the node,
// its events, the audit trail. Then a bulk rotation over a selector, a project's rotation policy,
// and a rotation resumed after its instance died while sending the change.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>

#include "inventory/crypto/primitives.hpp"
#include "inventory/tasks/task_engine.hpp"
#include "sim/ipmi/fleet.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/web/poller/poller_helpers.hpp"
#include "tests/web/tasks/fleet_helpers.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace credential_rotation_e2e_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

sim::RedfishFleetOptions redfish_fleet(const char* listen, unsigned count = 1) {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  o.listen = listen;
  o.count = count;
  o.reset_delay = 200ms;
  return o;
}

std::string rotate(TestServer& server, const std::string& token, const std::string& node,
                   const json& body = json::object()) {
  const auto res = http_send(server.port(), "POST", "/api/v1/nodes/" + node + "/credentials/rotate",
                             body, token);
  INFO(res.body);
  REQUIRE(res.status == 202);
  return res.json()["id"];
}

// An inspection asked for now and recorded without an error: the node's stored credentials log
// in at its BMC.
bool inspects_cleanly(TestServer& server, const std::string& token, const std::string& node) {
  const json before = http_get(server.port(), "/api/v1/nodes/" + node, token).json();
  const auto asked =
      http_send(server.port(), "POST", "/api/v1/nodes/" + node + "/inspect", json::object(), token);
  REQUIRE(asked.status == 202);
  const json after = wait_for_node(server, token, node, [&](const json& n) {
    return n["last_inspected"] != before["last_inspected"];
  });
  UNSCOPED_INFO("the node after the inspection: " << after.dump(2));
  return after["last_inspected"] != before["last_inspected"] && after["last_error"].is_null();
}

// Everything the API shows about the node and its rotation, where the password must not be.
std::string everything_shown(TestServer& server, const std::string& node, const std::string& task) {
  const auto auditor = server.token("auditor");
  const auto admin = server.token("admin");
  return http_get(server.port(), "/api/v1/tasks/" + task, admin).body +
         http_get(server.port(), "/api/v1/nodes/" + node, admin).body +
         http_get(server.port(), "/api/v1/nodes/" + node + "/events?limit=500", admin).body +
         http_get(server.port(), "/api/v1/audit?limit=500", auditor).body +
         http_get(server.port(), "/api/v1/tasks?limit=500", admin).body;
}

}  // namespace

TEST_CASE("a Redfish BMC's password is rotated, proven, stored and kept out of sight",
          "[tasks][credentials][e2e]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(redfish_fleet("127.0.89.62:0"));
  fleet.start();
  const auto token = server.token("operator");
  const std::string id = enroll_available(server, token, fleet, 0, "gpu-rot-01");
  const std::string original = fleet.state(0).password();

  const std::string task_id = rotate(server, token, id);
  const json task = wait_task_end(server, token, task_id);
  INFO(task.dump(2));
  REQUIRE(task["state"] == "succeeded");
  for (const char* step : {"change", "verify", "store"})
    CHECK(step_of(task, step)["state"] == "succeeded");
  CHECK(task["result"]["username"] == "admin");
  CHECK(task["result"]["generated"] == true);
  CHECK(task["parameters"]["length"] == 20);

  // The BMC's password is a new one of 20 characters, with every kind of character in it.
  const std::string now = fleet.state(0).password();
  CHECK(now != original);
  CHECK(now.size() == 20);
  CHECK(now.find_first_of("ABCDEFGHJKLMNPQRSTUVWXYZ") != std::string::npos);
  CHECK(now.find_first_of("abcdefghijkmnopqrstuvwxyz") != std::string::npos);
  CHECK(now.find_first_of("23456789") != std::string::npos);
  CHECK(now.find_first_of("-_.!+=") != std::string::npos);
  CHECK(fleet.describe(0)["counters"]["password_changes"] == 1);

  // The node is reached with it: an inspection after the rotation logs in without a refusal.
  const unsigned refused_before = fleet.describe(0)["counters"]["failed_logins"];
  CHECK(inspects_cleanly(server, token, id));
  CHECK(fleet.describe(0)["counters"]["failed_logins"] == refused_before);

  // The secret is nowhere to be seen.
  const std::string shown = everything_shown(server, id, task_id);
  CHECK(shown.find(now) == std::string::npos);
  CHECK(shown.find("node.credentials_rotated") != std::string::npos);
  CHECK(shown.find("credentials_rotated") != std::string::npos);

  // A password given by the operator, under an Idempotency-Key: what the database keeps of the
  // request is a keyed digest, not a hash anyone with the table could test guesses against.
  HttpRequest keyed;
  keyed.method = "POST";
  keyed.target = "/api/v1/nodes/" + id + "/credentials/rotate";
  keyed.body = R"({"password":"Giv3n-pass.word"})";
  keyed.token = token;
  keyed.headers["Idempotency-Key"] = "rotate-once";
  const auto asked = http_request(server.port(), keyed);
  INFO(asked.body);
  REQUIRE(asked.status == 202);
  const json given = wait_task_end(server, token, asked.json()["id"]);
  const std::string kept = server.database().execute(
      "SELECT request_hash FROM idempotency_keys WHERE key = 'rotate-once'");
  CHECK(kept.size() == 64);
  CHECK(kept != crypto::to_hex(crypto::sha256("POST " + keyed.target + "\n" + keyed.body)));
  const auto again = http_request(server.port(), keyed);  // the same request: the same task
  CHECK(again.json()["id"] == asked.json()["id"]);
  CHECK(given["state"] == "succeeded");
  CHECK(given["result"]["generated"] == false);
  CHECK(fleet.state(0).password() == "Giv3n-pass.word");
  CHECK(given.dump().find("Giv3n-pass.word") == std::string::npos);
  const auto short_one =
      http_send(server.port(), "POST", "/api/v1/nodes/" + id + "/credentials/rotate",
                {{"password", "short"}}, token);
  CHECK(short_one.status == 422);
  CHECK(short_one.body.find("short\"") == std::string::npos);
  CHECK(http_send(server.port(), "POST", "/api/v1/nodes/" + id + "/credentials/rotate",
                  {{"length", 8}}, token)
            .status == 422);
  CHECK(http_send(server.port(), "POST", "/api/v1/nodes/" + id + "/credentials/rotate",
                  {{"password", "Has space 123"}}, token)
            .status == 422);
  // A password the BMC refuses (it holds the user name): the task fails, nothing is stored, and
  // the node still logs in with the password it had.
  const json refused =
      wait_task_end(server, token, rotate(server, token, id, {{"password", "admin-N0-good"}}));
  CHECK(refused["state"] == "failed");
  CHECK(refused.dump().find("admin-N0-good") == std::string::npos);
  CHECK(fleet.state(0).password() == "Giv3n-pass.word");
  CHECK(inspects_cleanly(server, token, id));
}

TEST_CASE("an IPMI BMC's password is rotated through Set User Password",
          "[tasks][credentials][e2e][ipmi]") {
  TestServer server({}, {}, fast_poller());
  sim::IpmiFleetOptions o;
  o.listen = "127.0.89.63:0";
  sim::IpmiFleet fleet(o);
  fleet.start();
  const auto token = server.token("operator");
  const auto enrolled =
      http_send(server.port(), "POST", "/api/v1/nodes",
                {{"name", "old-ipmi-01"},
                 {"driver", "ipmi"},
                 {"endpoint", fleet.endpoint(0)},
                 {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                token);
  REQUIRE(enrolled.status == 201);
  const std::string id = enrolled.json()["id"];
  const std::string task_id = rotate(server, token, id);
  const json task = wait_task_end(server, token, task_id);
  INFO(task.dump(2));
  REQUIRE(task["state"] == "succeeded");
  CHECK(task["parameters"]["length"] == 16);
  const auto now = fleet.state(0).user_password("admin");
  REQUIRE(now);
  CHECK(now->size() == 16);
  CHECK(*now != "password");
  CHECK(everything_shown(server, id, task_id).find(*now) == std::string::npos);
  // Longer than 16 would need Set User Password's 20-byte form, which some BMCs take and then let
  // no one in with.
  CHECK(http_send(server.port(), "POST", "/api/v1/nodes/" + id + "/credentials/rotate",
                  {{"length", 20}}, token)
            .status == 422);
  // Polled with the new password afterwards.
  CHECK(inspects_cleanly(server, token, id));
}

TEST_CASE("a bulk rotation gives every matched BMC a password of its own",
          "[tasks][credentials][e2e][bulk]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(redfish_fleet("127.0.89.64:0", 2));
  fleet.start();
  const auto token = server.token("operator");
  enroll_available(server, token, fleet, 0, "rack7-a");
  enroll_available(server, token, fleet, 1, "rack7-b");
  const auto res = http_send(server.port(), "POST", "/api/v1/actions",
                             {{"selector", {{"names", {"rack7-a", "rack7-b"}}}},
                              {"action", "credentials"},
                              {"parameters", json::object()}},
                             token);
  INFO(res.body);
  REQUIRE(res.status == 202);
  const json ids = res.json()["tasks"];
  REQUIRE(ids.size() == 2);
  for (const auto& task_id : ids) {
    const json task = wait_task_end(server, token, task_id);
    INFO(task.dump(2));
    CHECK(task["state"] == "succeeded");
  }
  CHECK(fleet.state(0).password() != "password");
  CHECK(fleet.state(1).password() != "password");
  CHECK(fleet.state(0).password() != fleet.state(1).password());
}

TEST_CASE("a project's rotation policy rotates passwords older than its maximum age",
          "[tasks][credentials][e2e][policy]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(redfish_fleet("127.0.89.65:0"));
  fleet.start();
  const auto token = server.token("operator");
  const auto admin = server.token("admin");
  const std::string id = enroll_available(server, token, fleet, 0, "gpu-policy-01");

  // Set through the API (admin of every project only), and shown on the project.
  CHECK(http_send(server.port(), "PATCH", "/api/v1/projects/default",
                  {{"bmc_password_max_age_days", 30}}, token)
            .status == 403);
  CHECK(http_send(server.port(), "PATCH", "/api/v1/projects/default",
                  {{"bmc_password_max_age_days", 0}}, admin)
            .status == 422);
  const auto set = http_send(server.port(), "PATCH", "/api/v1/projects/default",
                             {{"bmc_password_max_age_days", 30}}, admin);
  INFO(set.body);
  REQUIRE(set.status == 200);
  CHECK(set.json()["bmc_password_max_age_days"] == 30);

  // A password set today is not due: no rotation after several scans.
  std::this_thread::sleep_for(1500ms);
  CHECK(http_get(server.port(), "/api/v1/tasks?kind=credentials", admin).json()["items"].empty());

  // Stored 31 days ago: due. Ironhold rotates it on its own.
  server.database().execute(
      "UPDATE node_credentials SET updated_at = now() - interval '31 days' WHERE node_id = '" + id +
      "'");
  json items;
  for (int i = 0; i < 100 && items.empty(); ++i) {
    std::this_thread::sleep_for(100ms);
    items = http_get(server.port(), "/api/v1/tasks?kind=credentials", admin).json()["items"];
  }
  REQUIRE(items.size() == 1);
  const json task = wait_task_end(server, token, items[0]["id"]);
  INFO(task.dump(2));
  CHECK(task["state"] == "succeeded");
  CHECK(task["automatic"] == true);
  CHECK(task["requested_by"] == "ironhold (BMC password rotation policy)");
  CHECK(fleet.state(0).password() != "password");
  // Rotated now: not due again.
  std::this_thread::sleep_for(1500ms);
  CHECK(http_get(server.port(), "/api/v1/tasks?kind=credentials", admin).json()["items"].size() ==
        1);
}

TEST_CASE(
    "a rotation resumed after its instance died while sending the change decides by logging in",
    "[tasks][credentials][e2e][resume]") {
  sim::RedfishFleet fleet(redfish_fleet("127.0.89.66:0"));
  fleet.start();
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);  // no engine of its own
  const auto token = server.token("operator");
  const std::string node = enroll_redfish(server, token, "gpu-rot-02", fleet.endpoint(0));
  const std::string task_id = rotate(server, token, node);

  // The dead instance: it claimed the task, recorded the change as being sent, and sent it.
  auto claimed = server.host().tasks().claim("dead-instance", 10, std::chrono::seconds(1));
  REQUIRE(claimed.size() == 1);
  const std::string new_password = claimed[0].secrets["new_password"];
  TaskStep change;
  change.name = "change";
  change.state = StepState::sending;
  change.detail = "changing the BMC password of \"admin\"";
  REQUIRE(
      server.host().tasks().save_steps(task_id, "dead-instance", std::vector<TaskStep>{change}));
  auto sent = boost::asio::co_spawn(
                  server.host().io_executor(),
                  server.host().redfish().change_bmc_password(claimed[0].target, new_password),
                  boost::asio::use_future)
                  .get();
  REQUIRE_FALSE(sent.error);
  std::this_thread::sleep_for(1500ms);  // the dead instance's lease runs out

  boost::asio::thread_pool pool(2);
  TaskEngineOptions options = TestServer::fast_tasks();
  options.owner = "restarted-instance";
  TaskEngine engine(server.host().io_executor(), pool, server.host().tasks(),
                    {{"redfish", &server.host().redfish()}}, nullptr, &server.host().polls(),
                    nullptr, options);
  engine.start();
  const json task = wait_task_end(server, token, task_id);
  engine.stop();
  pool.join();
  INFO(task.dump(2));
  CHECK(task["state"] == "succeeded");
  CHECK(task["attempts"] == 2);
  const json resumed = step_of(task, "change");
  REQUIRE(resumed.contains("in_doubt"));
  CHECK(resumed["in_doubt"].get<std::string>().find("the change happened") != std::string::npos);
  CHECK(fleet.describe(0)["counters"]["password_changes"] == 1);
  CHECK(fleet.state(0).password() == new_password);
  CHECK(task.dump().find(new_password) == std::string::npos);
}

}  // namespace credential_rotation_e2e_test

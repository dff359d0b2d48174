// The lifecycle end to end: the poller's first inspection makes a new node available by itself;
// release cleans a deployed node through a task (verified power off) and makes it available, or
// clean_failed when the BMC cannot be reached; retry, provide, manage and retire; refusals name
// the state and the allowed actions.
#include <catch2/catch.hpp>

#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/web/poller/poller_helpers.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace lifecycle_e2e_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

HttpResult lifecycle(TestServer& server, const std::string& token, const std::string& node,
                     const json& body) {
  return http_send(server.port(), "POST", "/api/v1/nodes/" + node + "/lifecycle", body, token);
}

std::string lifecycle_of(TestServer& server, const std::string& token, const std::string& node) {
  return http_get(server.port(), "/api/v1/nodes/" + node, token).json()["lifecycle"];
}

}  // namespace

TEST_CASE("a node becomes available by itself and is released through a clean task",
          "[tasks][lifecycle][e2e]") {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  o.reset_delay = 300ms;
  sim::RedfishFleet fleet(o);
  fleet.start();
  TestServer server({}, {}, fast_poller());
  const auto token = server.token("operator");
  const std::string id = enroll_redfish(server, token, "gpu-01", fleet.endpoint(0));
  const json node =
      wait_for_node(server, token, id, [](const json& n) { return n["lifecycle"] == "available"; });
  REQUIRE(node["lifecycle"] == "available");
  const auto events =
      http_get(server.port(), "/api/v1/nodes/" + id + "/events?kind=lifecycle", token).json();
  CHECK_FALSE(events["items"].empty());

  // Released only when deployed; the refusal says where the node is and what it allows.
  const auto refused = lifecycle(server, token, id, {{"action", "release"}});
  CHECK(refused.status == 409);
  const std::string detail = refused.json()["detail"];
  CHECK(detail.find("available") != std::string::npos);
  CHECK(detail.find("manage") != std::string::npos);

  // As if it had been provisioned: release powers it off (verified), then it is available.
  server.database().execute("UPDATE nodes SET lifecycle = 'deployed' WHERE id = '" + id + "'");
  const auto released = lifecycle(server, token, id, {{"action", "release"}});
  INFO(released.body);
  REQUIRE(released.status == 202);
  CHECK(released.json()["from"] == "deployed");
  CHECK(released.json()["node"]["lifecycle"] == "cleaning");
  const json clean = wait_task_end(server, token, released.json()["task"]["id"]);
  INFO(clean.dump(2));
  CHECK(clean["kind"] == "clean");
  CHECK(clean["state"] == "succeeded");
  CHECK(lifecycle_of(server, token, id) == "available");
  CHECK(fleet.describe(0)["systems"][0]["power_state"] == "Off");

  // manage: inspect again; the poller's inspection brings it back to available.
  const auto managed = lifecycle(server, token, id, {{"action", "manage"}});
  REQUIRE(managed.status == 200);
  CHECK(managed.json()["node"]["lifecycle"] == "inspecting");
  CHECK(wait_for_node(server, token, id, [](const json& n) {
          return n["lifecycle"] == "available";
        })["lifecycle"] == "available");

  const auto retired = lifecycle(server, token, id, {{"action", "retire"}});
  REQUIRE(retired.status == 200);
  CHECK(retired.json()["node"]["lifecycle"] == "retired");
  CHECK(lifecycle(server, token, id, {{"action", "manage"}}).status == 404);
}

TEST_CASE("a clean that cannot reach the BMC fails, and retry and provide follow the table",
          "[tasks][lifecycle][e2e]") {
  TestServer server;  // no poller: nothing answers on this endpoint
  const auto token = server.token("operator");
  const std::string id = enroll_redfish(server, token, "gpu-02", "https://127.0.0.2:1");
  CHECK(lifecycle_of(server, token, id) == "enrolled");
  server.database().execute("UPDATE nodes SET lifecycle = 'deployed' WHERE id = '" + id + "'");
  const auto released = lifecycle(server, token, id, {{"action", "release"}});
  REQUIRE(released.status == 202);
  const json clean = wait_task_end(server, token, released.json()["task"]["id"]);
  CHECK(clean["state"] == "failed");
  CHECK(lifecycle_of(server, token, id) == "clean_failed");

  const auto retried = lifecycle(server, token, id, {{"action", "retry"}});
  REQUIRE(retried.status == 202);
  CHECK(retried.json()["node"]["lifecycle"] == "cleaning");
  wait_task_end(server, token, retried.json()["task"]["id"]);
  CHECK(lifecycle_of(server, token, id) == "clean_failed");

  const auto provided = lifecycle(server, token, id, {{"action", "provide"}});
  REQUIRE(provided.status == 200);
  CHECK(provided.json()["node"]["lifecycle"] == "available");

  CHECK(lifecycle(server, token, id, {{"action", "fly"}}).status == 422);
  CHECK(lifecycle(server, token, id, {{"action", "manage"}, {"now", true}}).status == 400);
  CHECK(lifecycle(server, server.token("viewer"), id, {{"action", "manage"}}).status == 403);
  const auto audit = http_get(server.port(), "/api/v1/audit?target=" + id, server.token("auditor"));
  CHECK(audit.body.find("lifecycle") != std::string::npos);
}

}  // namespace lifecycle_e2e_test

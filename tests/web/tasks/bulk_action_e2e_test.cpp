// POST /api/v1/actions end to end: a selector over six simulated Redfish BMCs in two racks, one
// task per matched node under a bulk_id, max_parallel honoured (read back from the tasks' own
// start and end times), dry runs, refusals, idempotency and a bulk inspection.
#include <algorithm>
#include <catch2/catch.hpp>

#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace bulk_action_e2e_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

struct Rig {
  sim::RedfishFleet fleet{[] {
    sim::RedfishFleetOptions o;
    o.mockup_dir = project_mockup("hgx-gpu-server");
    o.count = 6;
    o.reset_delay = 300ms;
    return o;
  }()};
  TestServer server;
  std::string token;
  std::vector<std::string> ids;

  Rig() {
    fleet.start();
    token = server.token("operator");
    for (int i = 0; i < 6; ++i) {
      const auto res =
          http_send(server.port(), "POST", "/api/v1/nodes",
                    {{"name", "gpu-0" + std::to_string(i + 1)},
                     {"driver", "redfish"},
                     {"endpoint", fleet.endpoint(i)},
                     {"credentials", {{"username", "admin"}, {"password", "password"}}},
                     {"location", {{"site", "ams1"}, {"rack", i < 3 ? "R1" : "R2"}}}},
                    token);
      REQUIRE(res.status == 201);
      ids.push_back(res.json()["id"]);
    }
  }

  HttpResult bulk(const json& body, const std::string& key = "") {
    HttpRequest req;
    req.method = "POST";
    req.target = "/api/v1/actions";
    req.body = body.dump();
    req.token = token;
    if (!key.empty()) req.headers["Idempotency-Key"] = key;
    return http_request(server.port(), req);
  }

  std::vector<json> wait_all(const json& task_ids) {
    std::vector<json> out;
    for (const auto& id : task_ids) out.push_back(wait_task_end(server, token, id));
    return out;
  }
};

// The most tasks that ever ran at the same time, from their recorded start and end times.
int most_at_once(const std::vector<json>& tasks) {
  std::vector<std::pair<std::string, int>> edges;
  for (const auto& t : tasks) {
    edges.emplace_back(t["started_at"].get<std::string>(), +1);
    edges.emplace_back(t["finished_at"].get<std::string>(), -1);
  }
  std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second;  // ends before starts
  });
  int now = 0, most = 0;
  for (const auto& [when, delta] : edges) most = std::max(most, now += delta);
  return most;
}

}  // namespace

TEST_CASE("a bulk power action runs one task per matched node, at most max_parallel at once",
          "[tasks][bulk][e2e]") {
  Rig rig;
  const json body = {{"selector", {{"rack", "R1"}}},
                     {"action", "power"},
                     {"parameters", {{"action", "off"}}},
                     {"max_parallel", 2}};
  const auto dry = rig.bulk({{"selector", {{"rack", "R1"}}},
                             {"action", "power"},
                             {"parameters", {{"action", "off"}}},
                             {"dry_run", true}});
  REQUIRE(dry.status == 200);
  CHECK(dry.json()["matched"] == 3);
  CHECK(dry.json()["nodes"][0]["name"] == "gpu-01");
  CHECK(http_get(rig.server.port(), "/api/v1/tasks", rig.token).json()["items"].empty());

  const auto res = rig.bulk(body);
  INFO(res.body);
  REQUIRE(res.status == 202);
  const json created = res.json();
  CHECK(created["matched"] == 3);
  REQUIRE(created["tasks"].size() == 3);
  const std::string bulk_id = created["bulk_id"];
  const auto tasks = rig.wait_all(created["tasks"]);
  for (const auto& t : tasks) {
    INFO(t.dump(2));
    CHECK(t["state"] == "succeeded");
    CHECK(t["bulk_id"] == bulk_id);
  }
  CHECK(most_at_once(tasks) <= 2);
  for (std::size_t i = 0; i < 6; ++i)
    CHECK(rig.fleet.describe(i)["systems"][0]["power_state"] == (i < 3 ? "Off" : "On"));
  const auto listed = http_get(rig.server.port(), "/api/v1/tasks?bulk_id=" + bulk_id, rig.token);
  CHECK(listed.json()["items"].size() == 3);

  // The same request under the same key is the same bulk action.
  const auto first = rig.bulk({{"selector", {{"names", {"gpu-04", "gpu-05"}}}},
                               {"action", "identify"},
                               {"parameters", {{"on", true}}}},
                              "bulk-key-1");
  REQUIRE(first.status == 202);
  CHECK(first.json()["matched"] == 2);
  const auto again = rig.bulk({{"selector", {{"names", {"gpu-04", "gpu-05"}}}},
                               {"action", "identify"},
                               {"parameters", {{"on", true}}}},
                              "bulk-key-1");
  REQUIRE(again.status == 202);
  CHECK(again.json()["bulk_id"] == first.json()["bulk_id"]);
  CHECK(again.json()["tasks"] == first.json()["tasks"]);
  for (const auto& t : rig.wait_all(first.json()["tasks"])) CHECK(t["state"] == "succeeded");
  CHECK(rig.fleet.describe(3)["counters"]["identify_changes"] == 1);
  CHECK(rig.fleet.describe(0)["counters"]["identify_changes"] == 0);
}

TEST_CASE("a bulk action is refused before anything is made when it is malformed or empty",
          "[tasks][bulk][e2e]") {
  Rig rig;
  auto status_field = [&](const json& body) {
    const auto res = rig.bulk(body);
    const json problem = json::parse(res.body, nullptr, false);
    return std::to_string(res.status) + " " +
           (problem.is_object() ? problem.value("field", std::string()) : std::string());
  };
  CHECK(status_field({{"selector", json::object()},
                      {"action", "power"},
                      {"parameters", {{"action", "cycle"}}}}) == "422 selector");
  CHECK(status_field({{"action", "power"}, {"parameters", {{"action", "cycle"}}}}) ==
        "400 selector");
  CHECK(status_field({{"selector", {{"colour", "red"}}},
                      {"action", "power"},
                      {"parameters", {{"action", "cycle"}}}}) == "400 selector.colour");
  CHECK(status_field({{"selector", {{"health", "purple"}}},
                      {"action", "power"},
                      {"parameters", {{"action", "cycle"}}}}) == "400 selector.health");
  CHECK(status_field({{"selector", {{"rack", "R1"}}}, {"action", "explode"}}) == "422 action");
  CHECK(status_field({{"selector", {{"rack", "R1"}}},
                      {"action", "power"},
                      {"parameters", {{"action", "sideways"}}}}) == "422 parameters.action");
  CHECK(status_field({{"selector", {{"rack", "R1"}}},
                      {"action", "power"},
                      {"parameters", {{"action", "on"}}},
                      {"max_parallel", 0}}) == "422 max_parallel");
  CHECK(http_get(rig.server.port(), "/api/v1/tasks", rig.token).json()["items"].empty());
  // A selector that matches nothing is not an error: nothing to do.
  const auto none = rig.bulk(
      {{"selector", {{"rack", "R9"}}}, {"action", "power"}, {"parameters", {{"action", "on"}}}});
  REQUIRE(none.status == 202);
  CHECK(none.json()["matched"] == 0);
}

TEST_CASE("a bulk inspection reads and records each node's inventory", "[tasks][bulk][e2e]") {
  Rig rig;
  const auto res = rig.bulk({{"selector", {{"ids", {rig.ids[0]}}}}, {"action", "inspect"}});
  INFO(res.body);
  REQUIRE(res.status == 202);
  const auto tasks = rig.wait_all(res.json()["tasks"]);
  REQUIRE(tasks.size() == 1);
  INFO(tasks[0].dump(2));
  CHECK(tasks[0]["state"] == "succeeded");
  CHECK(tasks[0]["result"]["components"].get<int>() > 0);
  const json node = http_get(rig.server.port(), "/api/v1/nodes/" + rig.ids[0], rig.token).json();
  CHECK(node["last_inspected"].is_string());
  CHECK(node["hardware"]["gpu_count"].get<int>() > 0);
  const json other = http_get(rig.server.port(), "/api/v1/nodes/" + rig.ids[1], rig.token).json();
  CHECK(other["last_inspected"].is_null());
}

}  // namespace bulk_action_e2e_test

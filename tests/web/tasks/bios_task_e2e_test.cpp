// BIOS settings end to end: a simulated GPU server's BIOS is read into the inventory by its first
// inspection; a BIOS baseline for its model shows the drift; a task sets the baseline's values
// through the BIOS settings object, resets the server, reads them back and records them; the
// drift is gone, the BIOS history has both versions with what changed, and the values as of
// before the task are still readable. Expected values come from the mockup's own Bios document.
#include <catch2/catch.hpp>
#include <fstream>

#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/web/poller/poller_helpers.hpp"
#include "tests/web/tasks/fleet_helpers.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace bios_task_e2e_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

sim::RedfishFleetOptions bios_fleet(const char* listen) {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  o.listen = listen;
  o.reset_delay = 200ms;
  return o;
}

json mockup_document(const std::string& relative) {
  std::ifstream in(project_mockup("hgx-gpu-server") / relative / "index.json");
  REQUIRE(in);
  return json::parse(in);
}

HttpResult put_json(TestServer& server, const std::string& target, const json& body,
                    const std::string& token) {
  return http_send(server.port(), "PUT", target, body, token);
}

// The attribute of the mockup's BIOS whose value is a number, and a different number: what the
// baseline will ask for.
std::pair<std::string, json> numeric_attribute(const json& attributes) {
  for (const auto& [name, value] : attributes.items())
    if (value.is_number_integer()) return {name, value.get<int>() == 2 ? 1 : 2};
  FAIL("the mockup's BIOS has no numeric attribute");
  return {};
}

}  // namespace

TEST_CASE("a BIOS baseline's drift is set right by a task, verified and kept as history",
          "[tasks][bios][e2e]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(bios_fleet("127.0.89.60:0"));
  fleet.start();
  const auto token = server.token("operator");
  const auto admin = server.token("admin");
  const std::string id = enroll_available(server, token, fleet, 0, "gpu-bios-01");

  const json system = mockup_document("Systems/HGX_0");
  const json bios = mockup_document("Systems/HGX_0/Bios");
  const json& attributes = bios["Attributes"];

  // 1. The inventory holds the BIOS as the BMC has it.
  const auto read = http_get(server.port(), "/api/v1/nodes/" + id + "/bios", token);
  INFO(read.body);
  REQUIRE(read.status == 200);
  CHECK(read.json()["attributes"] == attributes);
  CHECK(read.json()["registry"] == bios["AttributeRegistry"]);
  CHECK(read.json()["apply_times"] == bios["@Redfish.Settings"]["SupportedApplyTimes"]);
  CHECK(read.json()["settable"] == true);
  CHECK(read.json()["boot_order"] == system["Boot"]["BootOrder"]);
  const std::string first_read_at = read.json()["since"];

  // 2. A baseline for the model: one attribute as the mockup has it, one not, one the BIOS lacks.
  const std::string model = system["Model"];
  const auto [number_name, number_wanted] = numeric_attribute(attributes);
  const std::string kept_name = "SriovGlobalEnable";
  REQUIRE(attributes.contains(kept_name));
  const json baseline = {{kept_name, attributes[kept_name]}, {number_name, number_wanted}};
  const auto put = put_json(server, "/api/v1/bios/baselines/" + url_encode(model),
                            {{"attributes", baseline}}, admin);
  INFO(put.body);
  REQUIRE(put.status == 200);
  CHECK(put_json(server, "/api/v1/bios/baselines/" + url_encode(model), {{"attributes", baseline}},
                 token)
            .status == 403);
  CHECK(put_json(server, "/api/v1/bios/baselines/" + url_encode(model),
                 {{"attributes", {{"Bad Name", "x"}}}}, admin)
            .status == 422);
  CHECK(put_json(server, "/api/v1/bios/baselines/" + url_encode(model),
                 {{"attributes", {{"A", {1, 2}}}}}, admin)
            .status == 400);

  const auto drift = http_get(server.port(), "/api/v1/bios/drift", token).json();
  INFO(drift.dump(2));
  CHECK(drift["nodes_checked"] == 1);
  CHECK(drift["nodes_compliant"] == 0);
  REQUIRE(drift["items"].size() == 1);
  CHECK(drift["items"][0]["node_id"] == id);
  CHECK(drift["items"][0]["attribute"] == number_name);
  CHECK(drift["items"][0]["expected"] == number_wanted);
  CHECK(drift["items"][0]["actual"] == attributes[number_name]);
  CHECK(drift["items"][0]["status"] == "drifted");
  const auto csv = http_get(server.port(), "/api/v1/bios/drift?format=csv", token);
  CHECK(csv.header("content-type").rfind("text/csv", 0) == 0);
  CHECK(csv.body.find("gpu-bios-01," + model + "," + number_name + "," + number_wanted.dump() +
                      "," + attributes[number_name].dump() + ",drifted") != std::string::npos);

  // 3. Refused before anything reaches the BMC: what its recorded BIOS cannot take.
  const auto unknown =
      post_action(server, token, id, "bios", {{"attributes", {{"NoSuchKnob", "On"}}}});
  CHECK(unknown.status == 422);
  CHECK(unknown.body.find("NoSuchKnob") != std::string::npos);
  const auto wrong_type =
      post_action(server, token, id, "bios", {{"attributes", {{number_name, "two"}}}});
  CHECK(wrong_type.status == 422);
  CHECK(wrong_type.body.find(number_name) != std::string::npos);
  const auto immediate =
      post_action(server, token, id, "bios",
                  {{"attributes", {{number_name, number_wanted}}}, {"apply_time", "Immediate"}});
  CHECK(immediate.status == 422);
  CHECK(immediate.body.find("OnReset") != std::string::npos);
  CHECK(post_action(server, token, id, "bios", json::object()).status == 422);
  CHECK(post_action(server, token, id, "bios", {{"attributes", {{number_name, {1}}}}}).status ==
        400);
  CHECK(fleet.describe(0)["counters"]["bios_writes"] == 0);

  // 4. The task: write what differs, reset, read back, record.
  const unsigned resets_before = all_resets(fleet);
  const std::string task_id = start_task(server, token, id, "bios", {{"from_baseline", true}});
  const json task = wait_task_end(server, token, task_id);
  INFO(task.dump(2));
  REQUIRE(task["state"] == "succeeded");
  for (const char* step : {"read", "write", "reset", "verify", "record"})
    CHECK(step_of(task, step)["state"] == "succeeded");
  CHECK(task["parameters"]["baseline_model"] == model);
  CHECK(task["result"]["verified"] == true);
  CHECK(task["result"]["attributes"] == json{{number_name, number_wanted}});
  CHECK(task["result"]["before"] == json{{number_name, attributes[number_name]}});
  const json counters = fleet.describe(0)["counters"];
  CHECK(counters["bios_writes"] == 1);
  CHECK(counters["bios_applies"] == 1);
  CHECK(all_resets(fleet) == resets_before + 1);

  // 5. No drift left; the BIOS has the new value and its history both versions.
  const auto after = http_get(server.port(), "/api/v1/bios/drift", token).json();
  CHECK(after["nodes_compliant"] == 1);
  CHECK(after["items"].empty());
  const auto now = http_get(server.port(), "/api/v1/nodes/" + id + "/bios", token).json();
  CHECK(now["attributes"][number_name] == number_wanted);
  const auto history =
      http_get(server.port(), "/api/v1/nodes/" + id + "/bios?history=true", token).json();
  INFO(history.dump(2));
  REQUIRE(history["items"].size() == 2);
  CHECK(history["items"][0]["changes"] == json::array({{{"attribute", number_name},
                                                        {"from", attributes[number_name]},
                                                        {"to", number_wanted}}}));
  CHECK(history["items"][1]["changes"].is_null());
  CHECK(history["items"][1]["until"] == history["items"][0]["since"]);
  const auto before =
      http_get(server.port(), "/api/v1/nodes/" + id + "/bios?as_of=" + first_read_at, token);
  REQUIRE(before.status == 200);
  CHECK(before.json()["attributes"] == attributes);
  const auto events =
      http_get(server.port(), "/api/v1/nodes/" + id + "/events?kind=bios_changed", token).json();
  REQUIRE(events["items"].size() == 1);
  CHECK(events["items"][0]["message"].get<std::string>().find(number_name) != std::string::npos);

  // 6. Nothing to do is done without writing or resetting.
  const json again = wait_task_end(
      server, token, start_task(server, token, id, "bios", {{"from_baseline", true}}));
  CHECK(again["state"] == "succeeded");
  CHECK(step_of(again, "write").is_null());
  CHECK(fleet.describe(0)["counters"]["bios_writes"] == 1);
  CHECK(all_resets(fleet) == resets_before + 1);

  // The audit trail has the baseline and the task.
  const auto audit =
      http_get(server.port(), "/api/v1/audit?limit=200", server.token("auditor")).body;
  CHECK(audit.find("bios_baseline") != std::string::npos);
  CHECK(audit.find(task_id) != std::string::npos);
}

TEST_CASE("a BIOS task left pending by \"reset\": false writes without resetting",
          "[tasks][bios][e2e]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(bios_fleet("127.0.89.61:0"));
  fleet.start();
  const auto token = server.token("operator");
  const std::string id = enroll_available(server, token, fleet, 0, "gpu-bios-02");
  const json attributes = mockup_document("Systems/HGX_0/Bios")["Attributes"];
  const auto [name, wanted] = numeric_attribute(attributes);
  const unsigned resets_before = all_resets(fleet);
  const json task = wait_task_end(
      server, token,
      start_task(server, token, id, "bios", {{"attributes", {{name, wanted}}}, {"reset", false}}));
  INFO(task.dump(2));
  REQUIRE(task["state"] == "succeeded");
  CHECK(task["result"]["verified"] == false);
  CHECK(task["result"]["pending"] == true);
  CHECK(step_of(task, "reset")["state"] == "skipped");
  CHECK(fleet.describe(0)["counters"]["bios_writes"] == 1);
  CHECK(fleet.describe(0)["counters"]["bios_applies"] == 0);
  CHECK(all_resets(fleet) == resets_before);
  // The inventory still shows what the BIOS runs with, not what waits.
  CHECK(
      http_get(server.port(), "/api/v1/nodes/" + id + "/bios", token).json()["attributes"][name] ==
      attributes[name]);
}

}  // namespace bios_task_e2e_test

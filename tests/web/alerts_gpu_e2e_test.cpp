// GPU health end to end: a simulated HGX server's GPU starts failing the way NVIDIA's service
// shows it (an uncorrectable ECC error, a row its HBM could not remap, a PCIe link at half width,
// then the GPU gone from the bus), and an NVSwitch counts an uncorrectable ECC error; the poller
// reads it, the default GPU alert rules fire, and a
// webhook receiver gets each alert in the Alertmanager format; once the GPU is healthy again the
// alerts resolve.
#include <catch2/catch.hpp>

#include "sim/redfish/fleet.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/webhook_receiver.hpp"
#include "tests/web/poller/poller_helpers.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace alerts_gpu_e2e_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// The alerts of one source and state, by the sensor (or the fingerprint where there is none).
std::map<std::string, json> alerts(TestServer& server, const std::string& token,
                                   const std::string& query) {
  std::map<std::string, json> out;
  const json page = http_get(server.port(), "/api/v1/alerts?limit=100&" + query, token).json();
  for (const auto& a : page["items"]) {
    const json details = a.value("details", json::object());
    out[details.value("sensor", a["fingerprint"].get<std::string>())] = a;
  }
  return out;
}

// The notifications the receiver got, as (alertname, status, sensor-or-empty).
std::set<std::tuple<std::string, std::string, std::string>> notified(const WebhookReceiver& r) {
  std::set<std::tuple<std::string, std::string, std::string>> out;
  for (const auto& request : r.received()) {
    const json body = json::parse(request.body, nullptr, false);
    if (!body.is_object()) continue;
    for (const auto& a : body.value("alerts", json::array())) {
      const json description =
          json::parse(a["annotations"].value("description", std::string("{}")), nullptr, false);
      out.insert({a["labels"].value("alertname", ""), a.value("status", ""),
                  description.is_object() ? description.value("sensor", "") : ""});
    }
  }
  return out;
}

}  // namespace

TEST_CASE("a failing GPU is alerted by the default GPU rules and notified, then resolved",
          "[web][alerts][gpu][e2e]") {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  sim::RedfishFleet fleet(o);
  fleet.start();
  TestServer server({}, {}, fast_poller());
  const auto admin = server.token("admin");
  WebhookReceiver receiver;
  REQUIRE(http_send(server.port(), "POST", "/api/v1/alert-receivers",
                    {{"name", "gpu-pager"},
                     {"url", "http://127.0.0.1:" + std::to_string(receiver.port()) + "/hook"},
                     {"secret", "gpu-receiver-secret-0042"},
                     {"min_severity", "warning"}},
                    admin)
              .status == 201);
  const std::string id = enroll_redfish(server, admin, "hgx-a", fleet.endpoint(0));
  const json node = wait_for_node(server, admin, id, [](const json& n) {
    return n["lifecycle"] == "available" && n["hardware"]["gpu_count"].is_number();
  });
  const int gpus = node["hardware"]["gpu_count"];
  REQUIRE(gpus == 8);
  // Healthy: GPU health readings are there, and nothing about them fires.
  const json sensors = http_get(server.port(), "/api/v1/nodes/" + id + "/sensors", admin).json();
  std::set<std::string> kinds;
  for (const auto& s : sensors["items"]) kinds.insert(s.value("kind", ""));
  for (const char* kind : {"gpu_ecc_uncorrectable", "gpu_row_remap_failure",
                           "gpu_pcie_link_downgrade", "nvswitch_ecc_uncorrectable"}) {
    INFO(kind);
    CHECK(kinds.count(kind) == 1);
  }
  CHECK(alerts(server, admin, "source=sensor_rule&state=firing").empty());

  // GPU_SXM_3 starts to fail, and NVSwitch_1 counts an uncorrectable error.
  fleet.state(0).set_gpu_fault(
      "GPU_SXM_3", {{"uncorrectable_ecc", 2}, {"row_remap_failed", true}, {"pcie_lanes", 8}});
  fleet.state(0).set_nvswitch_fault("NVSwitch_1", {{"uncorrectable_ecc", 1}});
  std::map<std::string, json> firing;
  REQUIRE(eventually(
      [&] {
        firing = alerts(server, admin, "source=sensor_rule&state=firing");
        return firing.size() == 4;
      },
      60s));
  const std::map<std::string, std::string> expected = {{"gpu_ecc_uncorrectable", "critical"},
                                                       {"gpu_row_remap_failure", "critical"},
                                                       {"gpu_pcie_link_downgrade", "warning"},
                                                       {"nvswitch_ecc_uncorrectable", "critical"}};
  for (const auto& [sensor, alert] : firing) {
    INFO(sensor << ": " << alert.dump());
    CHECK((sensor.rfind("GPU_SXM_3", 0) == 0 || sensor.rfind("NVSwitch_1", 0) == 0));
    const std::string kind = alert["details"]["kind"];
    REQUIRE(expected.count(kind) == 1);
    CHECK(alert["severity"] == expected.at(kind));
    CHECK(alert["node_name"] == "hgx-a");
  }
  REQUIRE(eventually([&] { return notified(receiver).size() >= 4; }, 60s));
  for (const auto& [sensor, alert] : firing)
    CHECK(notified(receiver).count({"sensor_rule", "firing", sensor}) == 1);

  // Then it falls off the bus: the next inspection counts one GPU less than the node had.
  fleet.state(0).set_gpu_fault("GPU_SXM_3", {{"missing", true}});
  REQUIRE(
      http_send(server.port(), "POST", "/api/v1/nodes/" + id + "/inspect", json::object(), admin)
          .status == 202);
  REQUIRE(eventually(
      [&] { return alerts(server, admin, "source=gpu_missing&state=firing").size() == 1; }, 60s));
  const json missing = alerts(server, admin, "source=gpu_missing&state=firing").begin()->second;
  CHECK(missing["severity"] == "critical");
  CHECK(missing["details"]["expected"] == gpus);
  CHECK(missing["details"]["seen"] == gpus - 1);
  REQUIRE(eventually(
      [&] {
        for (const auto& [name, status, sensor] : notified(receiver))
          if (name == "gpu_missing" && status == "firing") return true;
        return false;
      },
      60s));

  // Replaced with a healthy card: everything resolves, and the receiver hears it.
  fleet.state(0).set_gpu_fault("GPU_SXM_3", {{"missing", false},
                                             {"uncorrectable_ecc", 0},
                                             {"row_remap_failed", false},
                                             {"pcie_lanes", 16}});
  fleet.state(0).set_nvswitch_fault("NVSwitch_1", {{"uncorrectable_ecc", 0}});
  REQUIRE(
      http_send(server.port(), "POST", "/api/v1/nodes/" + id + "/inspect", json::object(), admin)
          .status == 202);
  REQUIRE(eventually(
      [&] {
        return alerts(server, admin, "state=firing").empty() &&
               alerts(server, admin, "source=sensor_rule&state=resolved").size() == 4;
      },
      60s));
  REQUIRE(eventually(
      [&] {
        int resolved = 0;
        for (const auto& [name, status, sensor] : notified(receiver))
          resolved += status == "resolved";
        return resolved >= 5;
      },
      60s));
}

TEST_CASE("a GPU taken out on purpose stops alerting once an operator sets the count to expect",
          "[web][alerts][gpu][e2e]") {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  sim::RedfishFleet fleet(o);
  fleet.start();
  TestServer server({}, {}, fast_poller());
  const auto admin = server.token("admin");
  const auto op = server.token("operator");
  const auto viewer = server.token("viewer");
  const std::string id = enroll_redfish(server, admin, "hgx-b", fleet.endpoint(0));
  const json node = wait_for_node(server, admin, id, [](const json& n) {
    return n["lifecycle"] == "available" && n["hardware"]["gpu_count"].is_number();
  });
  const int gpus = node["hardware"]["gpu_count"];
  CHECK(node["gpus_expected"] == gpus);  // learned from the first inspection with GPUs

  fleet.state(0).set_gpu_fault("GPU_SXM_5", {{"missing", true}});
  REQUIRE(
      http_send(server.port(), "POST", "/api/v1/nodes/" + id + "/inspect", json::object(), admin)
          .status == 202);
  REQUIRE(eventually(
      [&] { return alerts(server, admin, "source=gpu_missing&state=firing").size() == 1; }, 60s));

  // Wrong values are refused and change nothing; a viewer may not change it.
  const std::string path = "/api/v1/nodes/" + id;
  for (const json& wrong : {json(0), json(-1), json("7"), json(2.5), json(100000)}) {
    INFO(wrong.dump());
    const auto refused = http_send(server.port(), "PATCH", path, {{"gpus_expected", wrong}}, op);
    CHECK(refused.status == 422);
    CHECK(refused.body.find("gpus_expected") != std::string::npos);
  }
  CHECK(http_send(server.port(), "PATCH", path, {{"gpus_expected", nullptr}}, viewer).status ==
        403);
  CHECK(http_get(server.port(), path, admin).json()["gpus_expected"] == gpus);

  // null: the count the last inspection saw is what to expect now; the alert resolves.
  const auto taken = http_send(server.port(), "PATCH", path, {{"gpus_expected", nullptr}}, op);
  INFO(taken.body);
  REQUIRE(taken.status == 200);
  CHECK(taken.json()["gpus_expected"] == gpus - 1);
  REQUIRE(eventually(
      [&] { return alerts(server, admin, "source=gpu_missing&state=firing").empty(); }, 60s));

  // A number says it outright: expecting more than answer fires again.
  const auto more = http_send(server.port(), "PATCH", path, {{"gpus_expected", gpus}}, op);
  REQUIRE(more.status == 200);
  CHECK(more.json()["gpus_expected"] == gpus);
  REQUIRE(eventually(
      [&] { return alerts(server, admin, "source=gpu_missing&state=firing").size() == 1; }, 60s));

  // Each change is in the audit trail with what it was and what it became.
  const json audit = http_get(server.port(), path + "/audit", server.token("auditor")).json();
  std::vector<json> changes;
  for (const auto& entry : audit["items"])
    if (entry["action"] == "PATCH /api/v1/nodes/{id}" && entry["outcome"] == "200")
      changes.push_back(entry["details"]["gpus_expected"]);
  REQUIRE(changes.size() == 2);  // newest first
  CHECK(changes[0] == json{{"from", gpus - 1}, {"to", gpus}});
  CHECK(changes[1] == json{{"from", gpus}, {"to", nullptr}});
}

}  // namespace alerts_gpu_e2e_test

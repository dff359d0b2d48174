// Firmware baselines and compliance through the real service, against what the poller recorded
// of a simulated server: a component at its baseline is compliant, one at another version is
// outdated, one the node does not have is missing; the CSV export says the same and defuses
// formula-like cells.
#include <catch2/catch.hpp>

#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/web/poller/poller_helpers.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace firmware_baselines_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

std::string url_encoded(const std::string& text) {
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("compliance lists each node component that is off its model's baseline",
          "[web][firmware][baselines]") {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  sim::RedfishFleet fleet(o);
  fleet.start();
  TestServer server({}, {}, fast_poller());
  const auto token = server.token("operator");
  const auto admin = server.token("admin");
  const std::string id = enroll_redfish(server, token, "gpu-base-1", fleet.endpoint(0));
  const json node =
      wait_for_node(server, token, id, [](const json& n) { return n["lifecycle"] == "available"; });
  REQUIRE(node["lifecycle"] == "available");
  REQUIRE(node["model"].is_string());
  const std::string model = node["model"];
  std::map<std::string, std::string> versions;
  const json firmware = http_get(server.port(), "/api/v1/nodes/" + id + "/firmware", token).json();
  for (const auto& item : firmware["items"]) versions[item["component"]] = item["version"];
  REQUIRE(versions.count("BMC"));
  REQUIRE(versions.count("BIOS"));

  // Before any baseline: nothing is checked.
  json report = http_get(server.port(), "/api/v1/firmware/compliance", token).json();
  CHECK(report["nodes_checked"] == 0);
  CHECK(report["items"].empty());

  const std::string path = "/api/v1/firmware/baselines/" + url_encoded(model);
  const json baseline = {{"components",
                          {{"BMC", versions["BMC"]},
                           {"BIOS", "=" + versions["BIOS"] + "-newer"},
                           {"NoSuchPart", "1.0"}}}};
  CHECK(http_send(server.port(), "PUT", path, baseline, token).status == 403);  // admins only
  const auto put = http_send(server.port(), "PUT", path, baseline, admin);
  INFO(put.body);
  REQUIRE(put.status == 200);
  CHECK(put.json()["model"] == model);
  CHECK(http_get(server.port(), path, token).json()["components"]["NoSuchPart"] == "1.0");

  report = http_get(server.port(), "/api/v1/firmware/compliance", token).json();
  INFO(report.dump(2));
  CHECK(report["nodes_checked"] == 1);
  CHECK(report["nodes_compliant"] == 0);
  REQUIRE(report["items"].size() == 2);  // BMC is at its baseline
  CHECK(report["items"][0]["component"] == "BIOS");
  CHECK(report["items"][0]["status"] == "outdated");
  CHECK(report["items"][0]["actual"] == versions["BIOS"]);
  CHECK(report["items"][1]["component"] == "NoSuchPart");
  CHECK(report["items"][1]["status"] == "missing");
  CHECK(report["items"][1]["actual"].is_null());

  const auto csv =
      http_get(server.port(), "/api/v1/firmware/compliance?format=csv", server.token("auditor"));
  REQUIRE(csv.status == 200);
  CHECK(csv.header("content-type").find("text/csv") == 0);
  CHECK(csv.body.find("node_id,node_name,model,component,expected,actual,status\r\n") == 0);
  CHECK(csv.body.find(",'=" + versions["BIOS"] + "-newer,") != std::string::npos);
  CHECK(csv.body.find(",NoSuchPart,1.0,,missing\r\n") != std::string::npos);
  CHECK(http_get(server.port(), "/api/v1/firmware/compliance?format=xml", token).status == 400);

  // At its baseline: compliant.
  const json matching = {{"components", {{"BMC", versions["BMC"]}, {"BIOS", versions["BIOS"]}}}};
  REQUIRE(http_send(server.port(), "PUT", path, matching, admin).status == 200);
  report = http_get(server.port(), "/api/v1/firmware/compliance", token).json();
  CHECK(report["nodes_compliant"] == 1);
  CHECK(report["items"].empty());

  // Bad bodies; removal.
  CHECK(http_send(server.port(), "PUT", path, {{"components", json::object()}}, admin).status ==
        422);
  CHECK(http_send(server.port(), "PUT", path, {{"components", {{"BMC", 1}}}}, admin).status == 400);
  CHECK(http_send(server.port(), "PUT", path, {{"parts", {{"BMC", "1"}}}}, admin).status == 400);
  CHECK(http_get(server.port(), "/api/v1/firmware/baselines", token).json()["items"].size() == 1);
  CHECK(http_send(server.port(), "DELETE", path, nullptr, admin).status == 204);
  CHECK(http_get(server.port(), path, token).status == 404);
  CHECK(http_send(server.port(), "DELETE", path, nullptr, admin).status == 404);
}

}  // namespace firmware_baselines_test

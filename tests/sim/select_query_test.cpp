// $select on the simulated BMCs: what a client asks for, and the resource's @odata annotations,
// and nothing else; values identical to the whole document's.
#include "sim/redfish/select_query.hpp"

#include <catch2/catch.hpp>
#include <set>

#include "curl_client.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace select_query_test {

using ironhold::sim::redfish::apply_select;
using ironhold::sim::redfish::query_parameter;
using ironhold::test::curl_fetch;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path gpu_mockup = ironhold::test::project_mockup("hgx-gpu-server");
const std::string system_path = "/redfish/v1/Systems/HGX_0";

std::set<std::string> keys_of(const json& object) {
  std::set<std::string> keys;
  for (auto it = object.begin(); it != object.end(); ++it) keys.insert(it.key());
  return keys;
}

}  // namespace

TEST_CASE("query_parameter finds and percent-decodes one parameter", "[sim][select]") {
  CHECK(query_parameter("/redfish/v1/Systems/1?$select=Id,PowerState", "$select") ==
        "Id,PowerState");
  CHECK(query_parameter("/x?a=1&%24select=Status%2FHealth&b=2", "$select") == "Status/Health");
  CHECK(query_parameter("/x?$select=&a=1", "$select") == "");
  CHECK_FALSE(query_parameter("/x?$expand=.", "$select"));
  CHECK_FALSE(query_parameter("/x", "$select"));
  CHECK(query_parameter("/x?$select=A%2", "$select") == "A%2");  // a broken escape stays text
}

TEST_CASE("apply_select keeps selected properties, nested ones and the annotations",
          "[sim][select]") {
  const json document = {{"@odata.id", "/redfish/v1/Systems/1"},
                         {"@odata.type", "#ComputerSystem.v1_20_0.ComputerSystem"},
                         {"Id", "1"},
                         {"PowerState", "On"},
                         {"Status", {{"State", "Enabled"}, {"Health", "OK"}}},
                         {"Links", {{"Chassis", json::array()}}}};
  const json top = apply_select(document, "PowerState,Status");
  CHECK(keys_of(top) == std::set<std::string>{"@odata.id", "@odata.type", "PowerState", "Status"});
  CHECK(top["Status"] == document["Status"]);

  const json nested = apply_select(document, "Status/Health");
  CHECK(keys_of(nested) == std::set<std::string>{"@odata.id", "@odata.type", "Status"});
  CHECK(nested["Status"] == json{{"Health", "OK"}});
  // A whole property wins over one of its parts, in either order.
  CHECK(apply_select(document, "Status/Health,Status")["Status"] == document["Status"]);
  CHECK(apply_select(document, "Status,Status/Health")["Status"] == document["Status"]);
  // Unknown names select nothing; an empty list selects everything.
  CHECK(keys_of(apply_select(document, "NoSuch")) ==
        std::set<std::string>{"@odata.id", "@odata.type"});
  CHECK(apply_select(document, "") == document);
}

TEST_CASE("a simulated BMC answers $select with the selected part of the resource",
          "[sim][select]") {
  ironhold::sim::RedfishFleetOptions options;
  options.mockup_dir = gpu_mockup;
  options.count = 1;
  ironhold::sim::RedfishFleet fleet(options);
  fleet.start();
  const std::string base = fleet.endpoint(0);

  const json root = curl_fetch(base + "/redfish/v1/").doc();
  CHECK(root["ProtocolFeaturesSupported"]["SelectQuery"] == true);

  const json whole = curl_fetch(base + system_path).doc();
  const json selected = curl_fetch(base + system_path + "?$select=Id,PowerState,Status").doc();
  std::set<std::string> expected{"Id", "PowerState", "Status"};
  for (auto it = whole.begin(); it != whole.end(); ++it)
    if (it.key().rfind("@odata.", 0) == 0) expected.insert(it.key());
  CHECK(keys_of(selected) == expected);
  for (const auto& key : expected) CHECK(selected[key] == whole[key]);
  CHECK(selected.dump().size() < whole.dump().size() / 3);
}

}  // namespace select_query_test

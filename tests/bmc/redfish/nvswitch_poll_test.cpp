// The NVSwitches of an HGX tray through the real driver, over HTTPS from the simulator serving the
// project's GPU-server mockup: an inspection lists each as a component of the host with its
// firmware, and every sensor poll reads their error counters, so an NVSwitch that starts to count
// uncorrectable errors is seen without waiting for the next inspection. Expected values are read
// from the mockup's files.
#include <filesystem>
#include <fstream>

#include "bmc/redfish/redfish_driver.hpp"
#include "tests/bmc/redfish/driver_test_fixture.hpp"
#include "tests/support/project_mockups.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace nvswitch_poll_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace ironhold::bmc::redfish;
using nlohmann::json;

namespace {

// A document as the simulated BMC serves it (serials and UUIDs made unique per instance).
json served(sim::redfish::BmcState& bmc, const std::string& path) {
  sim::redfish::Request request{boost::beast::http::verb::get, path, 11};
  request.set(boost::beast::http::field::authorization, "Basic YWRtaW46cGFzc3dvcmQ=");
  return json::parse(bmc.handle(request).body());
}

json mockup_file(const std::filesystem::path& mockup, const std::string& url) {
  std::ifstream in(mockup / url.substr(std::string("/redfish/v1/").size()) / "index.json");
  REQUIRE(in);
  return json::parse(in);
}

const SensorReading* reading(const std::vector<SensorReading>& readings, const std::string& name) {
  for (const auto& r : readings)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("an HGX server's NVSwitches are components of its host, their counters polled",
          "[redfish][driver][gpu][nvswitch]") {
  const auto mockup = project_mockup("hgx-gpu-server");
  const std::string collection = "/redfish/v1/Fabrics/HGX_NVLinkFabric_0/Switches";
  std::map<std::string, json> switches;  // by Id
  const json listing = mockup_file(mockup, collection);
  for (const auto& member : listing["Members"]) {
    const json doc = mockup_file(mockup, member["@odata.id"].get<std::string>());
    switches[doc["Id"].get<std::string>()] = doc;
  }
  REQUIRE(switches.size() >= 2);

  SimulatedBmc bmc(mockup);
  for (auto& [id, doc] : switches) doc = served(bmc.state(), doc["@odata.id"].get<std::string>());
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const InspectionReport inspected = io.run(driver.inspect(bmc.target()));
  REQUIRE_FALSE(inspected.error);
  REQUIRE(inspected.systems.size() == 1);  // the baseboard is the host's, not a node
  std::map<std::string, Component> listed;
  for (const auto& c : inspected.systems[0].components)
    if (c.details.value("type", "") == "nvswitch") listed[c.slot] = c;
  REQUIRE(listed.size() == switches.size());
  for (const auto& [id, doc] : switches) {
    INFO(id);
    REQUIRE(listed.count(id) == 1);
    CHECK(listed[id].serial == doc["SerialNumber"].get<std::string>());
    CHECK(listed[id].firmware_version == doc["FirmwareVersion"].get<std::string>());
    CHECK(listed[id].details["uuid"] == doc["UUID"]);
    CHECK(listed[id].details["ecc"]["uncorrectable_aggregate"] == 0);
    CHECK(reading(inspected.systems[0].sensors, id + "_ECC_Uncorrectable"));
  }

  const std::string failing = switches.rbegin()->first;
  bmc.state().set_nvswitch_fault(failing, {{"uncorrectable_ecc", 2}, {"pcie_fatal_errors", 1}});
  const SensorReport polled = io.run(driver.poll_sensors(bmc.target()));
  REQUIRE_FALSE(polled.error);
  REQUIRE(polled.systems.size() == 1);
  const SensorReading* ecc = reading(polled.systems[0].sensors, failing + "_ECC_Uncorrectable");
  REQUIRE(ecc);
  CHECK(ecc->kind == "nvswitch_ecc_uncorrectable");
  CHECK(ecc->value == 2);
  const SensorReading* fatal = reading(polled.systems[0].sensors, failing + "_PCIe_Fatal_Errors");
  REQUIRE(fatal);
  CHECK(fatal->value == 1);
  const SensorReading* healthy =
      reading(polled.systems[0].sensors, switches.begin()->first + "_ECC_Uncorrectable");
  REQUIRE(healthy);
  CHECK(healthy->value == 0);
}

}  // namespace nvswitch_poll_test

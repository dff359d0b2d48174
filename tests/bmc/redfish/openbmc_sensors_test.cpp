// An OpenBMC (bmcweb) chassis that reports its readings only through the Sensors collection and
// the Thermal/PowerSubsystem resources, with no Thermal or Power: a real capture of an NVIDIA
// BlueField BMC (tests/data/vendor-captures/openbmc). The capture holds no System, so the System
// that owns the chassis is the test's; every reading is the capture's.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "bmc/redfish/normalize_parts.hpp"
#include "bmc/redfish/resource_graph.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace openbmc_sensors_test {

using namespace ironhold;
using namespace ironhold::bmc::redfish;
using nlohmann::json;
namespace fs = std::filesystem;

TEST_CASE("an OpenBMC chassis with Sensors and no Thermal or Power gives its readings",
          "[redfish][vendor]") {
  const fs::path tree = fs::path(__FILE__).parent_path().parent_path().parent_path() / "data" /
                        "vendor-captures" / "openbmc" / "tree";
  const std::string chassis = "/redfish/v1/Chassis/Moonraker_BMC";
  ResourceGraph graph;
  std::map<std::string, json> held;
  for (const auto& entry : fs::recursive_directory_iterator(tree)) {
    if (entry.path().filename() != "index.json") continue;
    std::ifstream in(entry.path());
    json doc = json::parse(in);
    const std::string id = doc.value("@odata.id", "");
    held[id] = doc;
    graph.add(id, std::move(doc));
  }
  REQUIRE_FALSE(graph.find(chassis));  // not in the capture: linked here as bmcweb links it
  graph.add(chassis, {{"@odata.id", chassis},
                      {"Id", "Moonraker_BMC"},
                      {"Sensors", {{"@odata.id", chassis + "/Sensors"}}},
                      {"ThermalSubsystem", {{"@odata.id", chassis + "/ThermalSubsystem"}}},
                      {"PowerSubsystem", {{"@odata.id", chassis + "/PowerSubsystem"}}}});
  const std::string system = "/redfish/v1/Systems/system";
  graph.add(system, {{"@odata.id", system},
                     {"Id", "system"},
                     {"Links", {{"Chassis", {{{"@odata.id", chassis}}}}}}});
  graph.add("/redfish/v1", {{"@odata.id", "/redfish/v1"}});

  const auto readings = normalize_sensor_readings(graph, system);
  std::map<std::string, const SensorReading*> by_name;
  for (const auto& r : readings) by_name[r.name] = &r;
  int expected = 0;
  for (const auto& member : held.at(chassis + "/Sensors")["Members"]) {
    const std::string path = member["@odata.id"];
    if (!held.count(path)) continue;  // listed, not in the capture
    const json& sensor = held.at(path);
    ++expected;
    INFO(path);
    REQUIRE(by_name.count(sensor["Id"].get<std::string>()) == 1);
    const SensorReading& r = *by_name.at(sensor["Id"].get<std::string>());
    CHECK(r.value == sensor["Reading"].get<double>());
    CHECK(r.unit == sensor["ReadingUnits"].get<std::string>());
    if (sensor["ReadingType"] == "Voltage") CHECK(r.kind == "voltage");
    CHECK(r.status == Health::ok);
  }
  CHECK(expected == 2);
}

}  // namespace openbmc_sensors_test

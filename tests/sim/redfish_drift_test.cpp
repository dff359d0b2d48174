// Sensor readings drift between reads, stay near the mockup's values and inside their thresholds,
// and go past the thresholds when the BMC's health is set to Warning or Critical.
#include <catch2/catch.hpp>
#include <set>

#include "curl_client.hpp"
#include "sim/redfish/drift.hpp"
#include "sim_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace redfish_drift_test {

using ironhold::test::curl_fetch;
using nlohmann::json;
namespace rf = ironhold::sim::redfish;

TEST_CASE("drift is deterministic, bounded and keeps to its side of thresholds",
          "[sim][redfish][drift]") {
  const json sensor = {
      {"@odata.type", "#Sensor.v1_7_0.Sensor"},
      {"@odata.id", "/redfish/v1/Chassis/1/Sensors/GPU1Temp"},
      {"Reading", 60.0},
      {"ReadingUnits", "Cel"},
      {"Status", {{"Health", "OK"}}},
      {"Thresholds", {{"UpperCaution", {{"Reading", 61}}}, {"UpperCritical", {{"Reading", 80}}}}}};
  CHECK(rf::drifts(sensor));
  CHECK(rf::drifted(sensor, 7, 3, rf::Heat::normal) == rf::drifted(sensor, 7, 3, rf::Heat::normal));
  std::set<double> seen;
  for (std::uint64_t tick = 1; tick <= 50; ++tick) {
    const double r = rf::drifted(sensor, 7, tick, rf::Heat::normal)["Reading"];
    CHECK(r < 61);
    CHECK(r > 57);
    seen.insert(r);
  }
  CHECK(seen.size() > 5);
  const json warm = rf::drifted(sensor, 7, 1, rf::Heat::warning);
  CHECK(warm["Reading"].get<double>() > 61);
  CHECK(warm["Reading"].get<double>() < 80);
  CHECK(warm["Status"]["Health"] == "Warning");
  CHECK(rf::drifted(sensor, 7, 1, rf::Heat::critical)["Reading"].get<double>() > 80);
  const json fan = {
      {"@odata.type", "#Sensor.v1_7_0.Sensor"}, {"Reading", 5000}, {"ReadingUnits", "RPM"}};
  CHECK(rf::drifted(fan, 1, 1, rf::Heat::critical)["Reading"].is_number_integer());
  CHECK(rf::drifted(fan, 1, 1, rf::Heat::critical)["Reading"].get<int>() < 5200);
}

TEST_CASE("readings served change between reads and follow the health set",
          "[sim][redfish][drift]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  ironhold::sim::RedfishFleet fleet(ironhold::test::fleet_options(1));
  fleet.start();
  const std::string thermal = fleet.endpoint(0) + "/redfish/v1/Chassis/1U/Thermal";
  const std::string power = fleet.endpoint(0) + "/redfish/v1/Chassis/1U/Power";
  std::set<double> cpu, watts;
  for (int i = 0; i < 12; ++i) {
    const json t = curl_fetch(thermal).doc();
    const json& temp = t["Temperatures"][0];  // CPU1 Temp: 41, caution at 42
    const double reading = temp["ReadingCelsius"];
    CHECK(reading < temp["UpperThresholdNonCritical"].get<double>());
    CHECK(reading > 35);
    cpu.insert(reading);
    watts.insert(curl_fetch(power).doc()["PowerControl"][0]["PowerConsumedWatts"].get<double>());
  }
  CHECK(cpu.size() > 1);
  CHECK(watts.size() > 1);
  for (double w : watts) CHECK(std::abs(w - 344) <= 344 * 0.03 + 1);

  fleet.state(0).set_health("Critical");
  const json hot = curl_fetch(thermal).doc()["Temperatures"][0];
  CHECK(hot["ReadingCelsius"].get<double>() > hot["UpperThresholdCritical"].get<double>());
  CHECK(hot["Status"]["Health"] == "Critical");
  fleet.state(0).set_health("OK");
  CHECK(curl_fetch(thermal).doc()["Temperatures"][0]["ReadingCelsius"].get<double>() < 42);
}

}  // namespace redfish_drift_test

// The Redfish driver's polls and inspection against the in-process simulator over HTTPS, with
// expected values read from the mockup files.
#include <thread>

#include "bmc/redfish/redfish_driver.hpp"
#include "tests/bmc/redfish/driver_test_fixture.hpp"
#include "tests/support/project_mockups.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace driver_poll_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace ironhold::bmc::redfish;
using nlohmann::json;

namespace {

std::string why(const DriverOutcome& outcome) {
  return outcome.error ? std::string(to_string(outcome.error->code)) + ": " + outcome.error->message
                       : "ok";
}

}  // namespace

TEST_CASE("a status poll reports every System's power state and logs in once",
          "[redfish][driver]") {
  if (!have_rackmount_mockup()) return;
  const auto dir = rackmount_mockup();
  const json systems = mockup_document(dir, "/redfish/v1/Systems");
  const json first = mockup_document(dir, mockup_first_system(dir));
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  for (int i = 0; i < 3; ++i) {
    const unsigned before = bmc.state().counters().requests;
    const StatusReport report = io.run(driver.poll_status(bmc.target()));
    // After the first poll the driver knows the System paths: one GET per System, nothing else.
    if (i > 0) CHECK(bmc.state().counters().requests - before == systems["Members"].size());
    INFO(why(report));
    REQUIRE(report.ok());
    REQUIRE(report.systems.size() == systems["Members"].size());
    CHECK(report.systems[0].system_id == first["Id"]);
    CHECK(report.systems[0].power_state ==
          (first["PowerState"] == "On" ? PowerState::on : PowerState::off));
    REQUIRE(report.tls_fingerprint);
    CHECK(report.tls_fingerprint->size() == 64);
  }
  CHECK(bmc.state().counters().successful_logins == 1);
}

TEST_CASE("a status poll follows the System's power changes", "[redfish][driver]") {
  if (!have_rackmount_mockup()) return;
  const std::string system = mockup_first_system(rackmount_mockup());
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  REQUIRE(io.run(driver.poll_status(bmc.target())).ok());
  REQUIRE(io.run(driver.power(bmc.target(), "", PowerAction::off)).ok());
  for (int i = 0; i < 100 && bmc.state().power_state(system) != "Off"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const StatusReport report = io.run(driver.poll_status(bmc.target()));
  REQUIRE(report.ok());
  CHECK(report.systems[0].power_state == PowerState::off);
}

TEST_CASE("polls with a wrong password fail as auth_failed without a login storm",
          "[redfish][driver]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  for (int i = 0; i < 4; ++i) {
    const StatusReport report = io.run(driver.poll_status(bmc.target("wrong")));
    REQUIRE_FALSE(report.ok());
    CHECK(report.error->code == DriverErrorCode::auth_failed);
  }
  CHECK(bmc.state().counters().failed_logins == 1);
  CHECK(io.run(driver.poll_status(bmc.target())).ok());
}

TEST_CASE("an inspection reads identity and the Manager's firmware", "[redfish][driver]") {
  if (!have_rackmount_mockup()) return;
  const auto dir = rackmount_mockup();
  const json system = mockup_document(dir, mockup_first_system(dir));
  const json managers = mockup_document(dir, "/redfish/v1/Managers");
  const json manager = mockup_document(dir, managers["Members"][0]["@odata.id"].get<std::string>());
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const InspectionReport report = io.run(driver.inspect(bmc.target()));
  INFO(why(report));
  REQUIRE(report.ok());
  REQUIRE_FALSE(report.systems.empty());
  const auto& identity = report.systems[0].identity;
  CHECK(report.systems[0].system_id == system["Id"]);
  CHECK(identity.serial ==
        sim::redfish::unique_serial(system["SerialNumber"].get<std::string>(), 0));
  CHECK(identity.model == system["Model"].get<std::string>());
  CHECK(identity.manufacturer == system["Manufacturer"].get<std::string>());
  CHECK(report.manager_firmware == manager["FirmwareVersion"].get<std::string>());
  CHECK(report.tls_fingerprint);
}

TEST_CASE("a sensor poll reports each log entry once per driver", "[redfish][driver]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const SensorReport first = io.run(driver.poll_sensors(bmc.target()));
  INFO(why(first));
  REQUIRE(first.ok());
  REQUIRE_FALSE(first.systems.empty());
  CHECK_FALSE(first.systems[0].sensors.empty());
  std::size_t events = 0;
  for (const auto& s : first.systems) events += s.events.size();
  CHECK(events > 0);  // the mockup's System has a log with entries

  const SensorReport second = io.run(driver.poll_sensors(bmc.target()));
  REQUIRE(second.ok());
  CHECK_FALSE(second.systems[0].sensors.empty());
  for (const auto& s : second.systems) CHECK(s.events.empty());

  // Another driver instance (a restarted service) reports them again.
  RedfishDriver fresh(io.io.get_executor());
  const SensorReport third = io.run(fresh.poll_sensors(bmc.target()));
  REQUIRE(third.ok());
  std::size_t again = 0;
  for (const auto& s : third.systems) again += s.events.size();
  CHECK(again == events);
}

TEST_CASE("a service that declares $select is polled for the status properties only",
          "[redfish][driver][select]") {
  // Our GPU-server mockup declares ProtocolFeaturesSupported.SelectQuery and the simulator
  // selects; the DMTF rackmount declares it false and must never be asked.
  const fs::path gpu = project_mockup("hgx-gpu-server");
  const std::string system = mockup_first_system(gpu);
  SimulatedBmc bmc(gpu);
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  REQUIRE(io.run(driver.poll_status(bmc.target())).ok());  // learns the Systems and $select
  CHECK(bmc.state().counters().selected_reads == 0);
  const StatusReport steady = io.run(driver.poll_status(bmc.target()));
  REQUIRE(steady.ok());
  CHECK(bmc.state().counters().selected_reads == 1);
  const json whole = mockup_document(gpu, system);
  CHECK(steady.systems[0].system_id == whole["Id"].get<std::string>());
  CHECK(steady.systems[0].power_state ==
        (whole["PowerState"] == "On" ? PowerState::on : PowerState::off));

  REQUIRE(io.run(driver.power(bmc.target(), "", PowerAction::off)).ok());
  for (int i = 0; i < 100 && bmc.state().power_state(system) != "Off"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const StatusReport after = io.run(driver.poll_status(bmc.target()));
  REQUIRE(after.ok());
  CHECK(after.systems[0].power_state == PowerState::off);

  if (!have_rackmount_mockup()) return;
  SimulatedBmc rack;
  RedfishDriver rack_driver(io.io.get_executor());
  REQUIRE(io.run(rack_driver.poll_status(rack.target())).ok());
  REQUIRE(io.run(rack_driver.poll_status(rack.target())).ok());
  CHECK(rack.state().counters().selected_reads == 0);
}

}  // namespace driver_poll_test

// The Redfish driver's actions against the in-process simulator over HTTPS: the simulator's power
// state machine, boot override and counters are the witness; expected values come from the
// mockup files.
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "bmc/redfish/redfish_driver.hpp"
#include "tests/bmc/redfish/driver_test_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace driver_actions_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace ironhold::bmc::redfish;
namespace beast_http = boost::beast::http;
using nlohmann::json;
using Types = std::vector<std::string>;

namespace {

RedfishDriverOptions fast_options() {
  RedfishDriverOptions options;
  options.actions.power_poll_interval = std::chrono::milliseconds(50);
  options.actions.power_off_timeout = std::chrono::milliseconds(5000);
  return options;
}

Types allowed_resets(const json& system) {
  return system["Actions"]["#ComputerSystem.Reset"]["ResetType@Redfish.AllowableValues"]
      .get<Types>();
}

bool contains(const Types& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// A private copy of the mockup whose System allows `allowed` reset types.
struct EditedMockup {
  explicit EditedMockup(const Types& allowed) {
    static int counter = 0;
    dir = fs::temp_directory_path() /
          ("ironhold-mockup-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    fs::remove_all(dir);
    fs::copy(rackmount_mockup(), dir, fs::copy_options::recursive);
    system = mockup_first_system(dir);
    json doc = mockup_document(dir, system);
    doc["Actions"]["#ComputerSystem.Reset"]["ResetType@Redfish.AllowableValues"] = allowed;
    std::ofstream(dir / system.substr(std::string("/redfish/v1/").size()) / "index.json")
        << doc.dump(2);
  }
  ~EditedMockup() { fs::remove_all(dir); }
  fs::path dir;
  std::string system;
};

json sim_get(sim::redfish::BmcState& bmc, const std::string& path) {
  sim::redfish::Request request{beast_http::verb::get, path, 11};
  request.set(beast_http::field::authorization, "Basic YWRtaW46cGFzc3dvcmQ=");  // admin:password
  return json::parse(bmc.handle(request).body());
}

}  // namespace

TEST_CASE("power actions change the simulated System's power state", "[redfish][actions]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor(), fast_options());
  const std::string system = mockup_first_system(rackmount_mockup());
  REQUIRE(bmc.state().power_state(system) == "On");

  const ActionReport off = io.run(driver.power(bmc.target(), "", PowerAction::off));
  INFO((off.error ? off.error->message : off.detail));
  REQUIRE(off.ok());
  CHECK(off.detail == "ResetType ForceOff");
  CHECK(off.tls_fingerprint);
  CHECK(settles_in(bmc.state(), system, "Off"));

  const ActionReport on = io.run(driver.power(bmc.target(), "", PowerAction::on));
  REQUIRE(on.ok());
  CHECK(on.detail == "ResetType On");
  CHECK(settles_in(bmc.state(), system, "On"));
  CHECK(bmc.state().counters().resets ==
        std::map<std::string, unsigned>{{"ForceOff", 1}, {"On", 1}});
  CHECK(bmc.state().counters().successful_logins == 1);
}

TEST_CASE("a power action names its System by Id", "[redfish][actions]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor(), fast_options());
  const std::string system = mockup_first_system(rackmount_mockup());
  const std::string id = mockup_document(rackmount_mockup(), system)["Id"].get<std::string>();
  CHECK(io.run(driver.power(bmc.target(), id, PowerAction::soft_off)).ok());
  CHECK(settles_in(bmc.state(), system, "Off"));
  const ActionReport unknown =
      io.run(driver.power(bmc.target(), "no-such-system", PowerAction::on));
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error->message.find("no-such-system") != std::string::npos);
}

TEST_CASE("a power cycle without PowerCycle is ForceOff, wait for Off, then On",
          "[redfish][actions]") {
  if (!have_rackmount_mockup()) return;
  const std::string system = mockup_first_system(rackmount_mockup());
  const Types allowed = allowed_resets(mockup_document(rackmount_mockup(), system));
  REQUIRE_FALSE(contains(allowed, "PowerCycle"));  // the mockup exercises the fallback
  const std::string on_type = contains(allowed, "On") ? "On" : "ForceOn";
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor(), fast_options());
  const ActionReport cycle = io.run(driver.power(bmc.target(), "", PowerAction::cycle));
  INFO((cycle.error ? cycle.error->message : cycle.detail));
  REQUIRE(cycle.ok());
  CHECK(cycle.detail == "ResetType ForceOff then " + on_type);
  CHECK(bmc.state().counters().resets ==
        std::map<std::string, unsigned>{{"ForceOff", 1}, {on_type, 1}});
  CHECK(settles_in(bmc.state(), system, "On"));
}

TEST_CASE("a reset type the BMC does not allow is unsupported and nothing is sent",
          "[redfish][actions]") {
  if (!have_rackmount_mockup()) return;
  Types allowed =
      allowed_resets(mockup_document(rackmount_mockup(), mockup_first_system(rackmount_mockup())));
  allowed.erase(std::remove(allowed.begin(), allowed.end(), "GracefulShutdown"), allowed.end());
  allowed.push_back("PowerCycle");
  EditedMockup mockup(allowed);
  SimulatedBmc bmc(mockup.dir);
  IoThreads io;
  RedfishDriver driver(io.io.get_executor(), fast_options());

  const ActionReport soft = io.run(driver.power(bmc.target(), "", PowerAction::soft_off));
  REQUIRE_FALSE(soft.ok());
  CHECK(soft.error->code == DriverErrorCode::unsupported);
  for (const auto& type : allowed) CHECK(soft.error->message.find(type) != std::string::npos);
  CHECK(bmc.state().counters().resets.empty());

  // Where PowerCycle is allowed, a cycle is one PowerCycle.
  const ActionReport cycle = io.run(driver.power(bmc.target(), "", PowerAction::cycle));
  REQUIRE(cycle.ok());
  CHECK(cycle.detail == "ResetType PowerCycle");
  CHECK(bmc.state().counters().resets == std::map<std::string, unsigned>{{"PowerCycle", 1}});
}

TEST_CASE("a boot override persists and is sent with If-Match", "[redfish][actions]") {
  if (!have_rackmount_mockup()) return;
  const std::string system = mockup_first_system(rackmount_mockup());
  const json boot = mockup_document(rackmount_mockup(), system)["Boot"];
  const Types targets = boot["BootSourceOverrideTarget@Redfish.AllowableValues"].get<Types>();
  // A device other than the mockup's current one, so the change shows.
  BootRequest request;
  std::string expected;
  for (const auto& [device, name] : {std::pair{BootDevice::cd, "Cd"},
                                     {BootDevice::disk, "Hdd"},
                                     {BootDevice::bios, "BiosSetup"}})
    if (contains(targets, name) && boot["BootSourceOverrideTarget"] != name) {
      request.device = device;
      expected = name;
      break;
    }
  REQUIRE_FALSE(expected.empty());
  request.persistent = boot["BootSourceOverrideEnabled"] != "Continuous";
  const std::string enabled = request.persistent ? "Continuous" : "Once";
  request.mode = boot["BootSourceOverrideMode"] == "UEFI" ? BootMode::legacy : BootMode::uefi;
  const std::string mode = request.mode == BootMode::uefi ? "UEFI" : "Legacy";

  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor(), fast_options());
  const ActionReport report = io.run(driver.set_boot(bmc.target(), "", request));
  INFO((report.error ? report.error->message : report.detail));
  REQUIRE(report.ok());
  CHECK(report.detail.find("BootSourceOverrideTarget=" + expected) != std::string::npos);
  CHECK(report.detail.find("If-Match") != std::string::npos);  // the simulator sends ETags

  const json now = sim_get(bmc.state(), system)["Boot"];
  CHECK(now["BootSourceOverrideTarget"] == expected);
  CHECK(now["BootSourceOverrideEnabled"] == enabled);
  CHECK(now["BootSourceOverrideMode"] == mode);
}

TEST_CASE("a boot target the BMC does not list is unsupported", "[redfish][actions]") {
  if (!have_rackmount_mockup()) return;
  EditedMockup mockup(
      allowed_resets(mockup_document(rackmount_mockup(), mockup_first_system(rackmount_mockup()))));
  json doc = mockup_document(mockup.dir, mockup.system);
  doc["Boot"]["BootSourceOverrideTarget@Redfish.AllowableValues"] = Types{"Pxe", "Hdd"};
  std::ofstream(mockup.dir / mockup.system.substr(std::string("/redfish/v1/").size()) /
                "index.json")
      << doc.dump(2);
  SimulatedBmc bmc(mockup.dir);
  IoThreads io;
  RedfishDriver driver(io.io.get_executor(), fast_options());
  const ActionReport report =
      io.run(driver.set_boot(bmc.target(), "", BootRequest{BootDevice::cd, false, std::nullopt}));
  REQUIRE_FALSE(report.ok());
  CHECK(report.error->code == DriverErrorCode::unsupported);
  CHECK(report.error->message.find("Pxe, Hdd") != std::string::npos);
}

TEST_CASE("identify lights and clears the System's locator", "[redfish][actions]") {
  if (!have_rackmount_mockup()) return;
  const std::string system = mockup_first_system(rackmount_mockup());
  const json doc = mockup_document(rackmount_mockup(), system);
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor(), fast_options());
  // The newer LocationIndicatorActive where the mockup drives it (a boolean), else IndicatorLED.
  const bool location =
      doc.contains("LocationIndicatorActive") &&
      (doc["LocationIndicatorActive"].is_boolean() || !doc.contains("IndicatorLED"));
  for (const bool on : {true, false}) {
    const ActionReport report = io.run(driver.identify(bmc.target(), "", on));
    INFO((report.error ? report.error->message : report.detail));
    REQUIRE(report.ok());
    const json now = sim_get(bmc.state(), system);
    if (location)
      CHECK(now["LocationIndicatorActive"] == on);
    else
      CHECK(now["IndicatorLED"] == (on ? "Lit" : "Off"));
  }
  CHECK(bmc.state().counters().identify_changes == 2);
}

TEST_CASE("a controller reset sends Manager.Reset to the first Manager", "[redfish][actions]") {
  if (!have_rackmount_mockup()) return;
  const json managers = mockup_document(rackmount_mockup(), "/redfish/v1/Managers");
  const json manager =
      mockup_document(rackmount_mockup(), managers["Members"][0]["@odata.id"].get<std::string>());
  const Types allowed =
      manager["Actions"]["#Manager.Reset"]["ResetType@Redfish.AllowableValues"].get<Types>();
  const std::string expected =
      contains(allowed, "GracefulRestart") ? "GracefulRestart" : allowed.front();
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor(), fast_options());
  const ActionReport report = io.run(driver.reset_controller(bmc.target()));
  INFO((report.error ? report.error->message : report.detail));
  REQUIRE(report.ok());
  CHECK(report.detail == "Manager.Reset ResetType " + expected);
  CHECK(bmc.state().counters().manager_resets == std::map<std::string, unsigned>{{expected, 1}});
}

}  // namespace driver_actions_test

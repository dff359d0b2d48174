// Redfish BIOS settings against real material: the Bios documents of Dell iDRAC 9, HPE iLO 4 and
// 5, Gigabyte (AMI MegaRAC) captures and the DMTF public-rackmount1 mockup are read as they hold
// them (expected values taken from the files here), and the driver writes a Dell capture's own
// attribute through the simulated BMC's settings object, which the reset applies.
#include "bmc/redfish/bios.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "bmc/redfish/redfish_driver.hpp"
#include "driver_test_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace bios_test {

using namespace ironhold;
using namespace ironhold::bmc::redfish;
using ironhold::test::IoThreads;
using ironhold::test::SimulatedBmc;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path captures() {
  return fs::path(__FILE__).parent_path().parent_path().parent_path() / "data" / "vendor-captures";
}

json read_json(const fs::path& file) {
  std::ifstream in(file);
  REQUIRE(in.good());
  return json::parse(in);
}

struct Material {
  const char* name;
  fs::path system, bios;
};

std::vector<Material> materials() {
  std::vector<Material> out = {
      {"dell-idrac9", captures() / "dell-idrac9/tree/Systems/System.Embedded.1/index.json",
       captures() / "dell-idrac9/tree/Systems/System.Embedded.1/Bios/index.json"},
      {"hpe-ilo", captures() / "hpe-ilo/tree/Systems/1/index.json",
       captures() / "hpe-ilo/tree/systems/1/bios/index.json"},
      {"hpe-ilo5-dl325", captures() / "hpe-ilo5-dl325/tree/Systems/1/index.json",
       captures() / "hpe-ilo5-dl325/tree/Systems/1/bios/index.json"},
      {"gigabyte-ami", captures() / "gigabyte-ami/tree/Systems/Self/index.json",
       captures() / "gigabyte-ami/tree/Systems/Self/Bios/index.json"}};
  const fs::path dmtf = ironhold::test::rackmount_mockup() / "Systems/437XR1138R2";
  if (fs::exists(dmtf / "Bios/index.json"))
    out.push_back({"public-rackmount1", dmtf / "index.json", dmtf / "Bios/index.json"});
  return out;
}

}  // namespace

TEST_CASE("BIOS settings are read as each vendor's Bios document holds them",
          "[bmc][redfish][bios][vendor]") {
  for (const auto& m : materials()) {
    INFO(m.name);
    const json system = read_json(m.system);
    const json bios = read_json(m.bios);
    const auto got = bios_settings(system, &bios);
    REQUIRE(got);
    json scalars = json::object();
    for (const auto& [name, value] : bios["Attributes"].items())
      if (!value.is_structured()) scalars[name] = value;
    CHECK(got->attributes == scalars);
    CHECK(got->attributes.size() == bios["Attributes"].size());  // every capture: scalars only
    CHECK(got->registry == bios["AttributeRegistry"].get<std::string>());
    const json settings = bios.value("@Redfish.Settings", json::object());
    CHECK(got->settable == settings.contains("SettingsObject"));
    CHECK(json(got->apply_times) == settings.value("SupportedApplyTimes", json::array()));
    json order = json::array();
    if (system.contains("Boot") && system["Boot"].contains("BootOrder"))
      order = system["Boot"]["BootOrder"];
    CHECK(json(got->boot_order) == order);
  }
  // A document without Attributes is no BIOS.
  const json empty = {{"Id", "Bios"}};
  CHECK_FALSE(bios_settings(json::object(), &empty));
  CHECK_FALSE(bios_settings(json::object(), nullptr));
}

TEST_CASE("The attributes a BMC's settings messages name as refused are found",
          "[bmc][redfish][bios][vendor]") {
  for (const auto& m : materials()) {
    INFO(m.name);
    const json bios = read_json(m.bios);
    // Expected from the document: every non-Success message's RelatedProperties, else its
    // MessageArgs, as attribute names.
    std::vector<std::string> expected;
    for (const auto& msg :
         bios.value("@Redfish.Settings", json::object()).value("Messages", json::array())) {
      const std::string id = msg.value("MessageId", "");
      if (id.size() >= 7 && id.compare(id.size() - 7, 7, "Success") == 0) continue;
      std::vector<std::string> names;
      for (const auto& p : msg.value("RelatedProperties", json::array())) {
        std::string name = p.get<std::string>();
        name = name.substr(name.rfind('/') + 1);
        names.push_back(name);
      }
      if (names.empty())
        for (const auto& a : msg.value("MessageArgs", json::array())) names.push_back(a);
      for (auto& n : names)
        if (std::find(expected.begin(), expected.end(), n) == expected.end()) expected.push_back(n);
    }
    std::vector<std::string> refused;
    const auto text = settings_messages(bios, refused);
    CHECK(refused == expected);
    CHECK(text.size() ==
          bios.value("@Redfish.Settings", json::object()).value("Messages", json::array()).size());
  }
  // What these captures say, read by eye from the files: iLO 4 refused NumaGroupSizeOpt.
  std::vector<std::string> refused;
  settings_messages(read_json(materials()[1].bios), refused);
  CHECK(refused == std::vector<std::string>{"NumaGroupSizeOpt"});
}

TEST_CASE("The BIOS settings body carries an apply time the BMC lists, and no other",
          "[bmc][redfish][bios]") {
  const json dell = read_json(materials()[0].bios);
  const auto target = settings_target(dell);
  REQUIRE(target);
  BiosChange change;
  change.attributes = {{"SriovGlobalEnable", "Enabled"}};
  auto body = bios_settings_body(change, *target);
  REQUIRE(std::holds_alternative<json>(body));
  CHECK(std::get<json>(body)["@Redfish.SettingsApplyTime"]["ApplyTime"] == "OnReset");
  CHECK(std::get<json>(body)["Attributes"] == change.attributes);
  change.apply_time = "Immediate";  // iDRAC lists OnReset and maintenance windows only
  body = bios_settings_body(change, *target);
  REQUIRE(std::holds_alternative<DriverError>(body));
  CHECK_THAT(std::get<DriverError>(body).message, Catch::Contains("AtMaintenanceWindowStart"));
  // iLO lists none: nothing is sent but the attributes, and only OnReset can be asked for.
  const auto ilo = settings_target(read_json(materials()[2].bios));
  REQUIRE(ilo);
  CHECK(ilo->apply_times.empty());
  change.apply_time = "OnReset";
  body = bios_settings_body(change, *ilo);
  REQUIRE(std::holds_alternative<json>(body));
  CHECK_FALSE(std::get<json>(body).contains("@Redfish.SettingsApplyTime"));
  change.apply_time = "Immediate";
  CHECK(std::holds_alternative<DriverError>(bios_settings_body(change, *ilo)));
}

TEST_CASE("The driver writes a Dell capture's BIOS attribute and the reset applies it",
          "[bmc][redfish][bios][vendor]") {
  const fs::path tree = captures() / "dell-idrac9/tree";
  const json capture = read_json(materials()[0].bios)["Attributes"];
  const std::string name = "SriovGlobalEnable";
  REQUIRE(capture.contains(name));
  const json wanted = capture[name] == "Enabled" ? "Disabled" : "Enabled";
  SimulatedBmc bmc(tree);
  IoThreads io;
  RedfishDriverOptions options;
  options.actions.power_poll_interval = std::chrono::milliseconds(50);
  RedfishDriver driver(io.io.get_executor(), options);

  // The inspection reads the BIOS with the rest.
  const InspectionReport inspected = io.run(driver.inspect(bmc.target()));
  REQUIRE(inspected.ok());
  REQUIRE(inspected.systems[0].bios);
  CHECK(inspected.systems[0].bios->attributes == capture);

  BiosChange change;
  change.attributes = {{name, wanted}};
  const ActionReport written = io.run(driver.write_bios(bmc.target(), "", change));
  INFO((written.error ? written.error->message : written.detail));
  REQUIRE(written.ok());
  CHECK_THAT(written.detail, Catch::Contains("/Bios/Settings"));
  CHECK_THAT(written.detail, Catch::Contains("ApplyTime OnReset"));
  CHECK(bmc.state().counters().bios_writes == 1);

  // Pending until the reset: the BIOS still runs with the capture's value.
  BiosReport pending = io.run(driver.read_bios(bmc.target(), ""));
  REQUIRE(pending.ok());
  CHECK(pending.bios->attributes[name] == capture[name]);
  CHECK(pending.pending == json{{name, wanted}});

  const ActionReport reset = io.run(driver.power(bmc.target(), "", PowerAction::reset));
  REQUIRE(reset.ok());
  BiosReport applied;
  for (int i = 0; i < 100; ++i) {
    applied = io.run(driver.read_bios(bmc.target(), ""));
    if (applied.ok() && applied.bios->attributes[name] == wanted) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(applied.ok());
  CHECK(applied.bios->attributes[name] == wanted);
  CHECK(applied.pending.empty());
  CHECK(applied.refused.empty());
  CHECK(bmc.state().counters().bios_applies == 1);

  // An attribute the BIOS does not have, and a value of the wrong type: the BMC refuses them.
  change.attributes = {{"NoSuchAttribute", "Enabled"}};
  const ActionReport unknown = io.run(driver.write_bios(bmc.target(), "", change));
  REQUIRE(unknown.error);
  CHECK_THAT(unknown.error->message, Catch::Contains("NoSuchAttribute"));
  change.attributes = {{name, 1}};
  const ActionReport wrong = io.run(driver.write_bios(bmc.target(), "", change));
  REQUIRE(wrong.error);
  CHECK(bmc.state().counters().bios_writes == 1);
}

TEST_CASE("A BMC whose Bios names no settings object cannot be written",
          "[bmc][redfish][bios][vendor]") {
  // The Gigabyte (AMI) capture's @Redfish.Settings has Messages but no SettingsObject.
  SimulatedBmc bmc(captures() / "gigabyte-ami/tree");
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const BiosReport read = io.run(driver.read_bios(bmc.target(), ""));
  REQUIRE(read.ok());
  CHECK_FALSE(read.bios->settable);
  BiosChange change;
  change.attributes = {
      {read.bios->attributes.begin().key(), read.bios->attributes.begin().value()}};
  const ActionReport refused = io.run(driver.write_bios(bmc.target(), "", change));
  REQUIRE(refused.error);
  CHECK(refused.error->code == DriverErrorCode::unsupported);
  CHECK_THAT(refused.error->message, Catch::Contains("settings object"));
}

}  // namespace bios_test

// What the Redfish actions send for each request, given what a BMC allows (pure functions).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "bmc/redfish/actions.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace driver_plan_test {

using namespace ironhold;
using namespace ironhold::bmc::redfish;
using nlohmann::json;
using Types = std::vector<std::string>;

namespace {

Types planned(PowerAction action, const std::optional<Types>& allowed) {
  auto plan = plan_reset(action, allowed);
  if (auto* e = std::get_if<DriverError>(&plan)) {
    FAIL(e->message);
  }
  return std::get<Types>(plan);
}

// A System document of a vendor capture (tests/data/vendor-captures).
json captured_system(const std::string& vendor, const std::string& system) {
  const auto file = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() /
                    "data" / "vendor-captures" / vendor / "tree" / "Systems" / system /
                    "index.json";
  std::ifstream in(file);
  REQUIRE(in);
  return json::parse(in);
}

}  // namespace

TEST_CASE("power actions map onto the allowed reset types", "[redfish][actions]") {
  const Types all = {"On",           "ForceOn",         "ForceOff",  "GracefulShutdown",
                     "ForceRestart", "GracefulRestart", "PowerCycle"};
  CHECK(planned(PowerAction::on, all) == Types{"On"});
  CHECK(planned(PowerAction::on, Types{"ForceOn", "ForceOff"}) == Types{"ForceOn"});
  CHECK(planned(PowerAction::off, all) == Types{"ForceOff"});
  CHECK(planned(PowerAction::soft_off, all) == Types{"GracefulShutdown"});
  CHECK(planned(PowerAction::reset, all) == Types{"ForceRestart"});
  CHECK(planned(PowerAction::reset, Types{"GracefulRestart", "On"}) == Types{"GracefulRestart"});
  CHECK(planned(PowerAction::cycle, all) == Types{"PowerCycle"});
  CHECK(planned(PowerAction::cycle, Types{"On", "ForceOff"}) == Types{"ForceOff", "On"});
  // A service that does not list its values allows anything.
  CHECK(planned(PowerAction::cycle, std::nullopt) == Types{"PowerCycle"});
}

TEST_CASE("a reset type the BMC does not allow is unsupported, naming the allowed ones",
          "[redfish][actions]") {
  const Types allowed = {"On", "ForceOff"};
  auto plan = plan_reset(PowerAction::soft_off, allowed);
  REQUIRE(std::holds_alternative<DriverError>(plan));
  const auto& error = std::get<DriverError>(plan);
  CHECK(error.code == DriverErrorCode::unsupported);
  CHECK(error.message.find("On, ForceOff") != std::string::npos);
  CHECK(std::holds_alternative<DriverError>(plan_reset(PowerAction::cycle, Types{"On"})));
}

TEST_CASE("boot overrides are PATCHed as Redfish Boot properties", "[redfish][actions]") {
  CHECK(
      boot_patch(BootRequest{BootDevice::pxe, false, std::nullopt}) ==
      json{{"Boot", {{"BootSourceOverrideTarget", "Pxe"}, {"BootSourceOverrideEnabled", "Once"}}}});
  CHECK(boot_patch(BootRequest{BootDevice::bios, true, BootMode::legacy}) ==
        json{{"Boot",
              {{"BootSourceOverrideTarget", "BiosSetup"},
               {"BootSourceOverrideEnabled", "Continuous"},
               {"BootSourceOverrideMode", "Legacy"}}}});
  CHECK(boot_target(BootDevice::disk) == "Hdd");
  CHECK(boot_target(BootDevice::cd) == "Cd");
}

TEST_CASE("identify uses LocationIndicatorActive, or IndicatorLED on older services",
          "[redfish][actions]") {
  CHECK(identify_patch(json{{"LocationIndicatorActive", false}}, true) ==
        json{{"LocationIndicatorActive", true}});
  CHECK(identify_patch(json{{"IndicatorLED", "Off"}}, true) == json{{"IndicatorLED", "Lit"}});
  CHECK(identify_patch(json{{"IndicatorLED", "Lit"}}, false) == json{{"IndicatorLED", "Off"}});
  CHECK(identify_patch(json{{"LocationIndicatorActive", nullptr}, {"IndicatorLED", "Off"}}, true) ==
        json{{"IndicatorLED", "Lit"}});
  CHECK_FALSE(identify_patch(json{{"Id", "1"}}, true));
}

TEST_CASE("a Supermicro BMC is sent its current boot mode with the override, others are not",
          "[redfish][actions][dialect]") {
  const BootRequest pxe{BootDevice::pxe, false, std::nullopt};
  const json supermicro = captured_system("supermicro", "1");
  const json patch = boot_patch(pxe, supermicro);
  CHECK(patch["Boot"]["BootSourceOverrideMode"] == supermicro["Boot"]["BootSourceOverrideMode"]);
  CHECK(patch["Boot"]["BootSourceOverrideTarget"] == "Pxe");
  // A mode asked for wins over the current one.
  const BootRequest legacy{BootDevice::pxe, false, BootMode::legacy};
  CHECK(boot_patch(legacy, supermicro)["Boot"]["BootSourceOverrideMode"] == "Legacy");
  // iLO refuses a mode it does not let change: nothing beyond what was asked elsewhere.
  const json dell = captured_system("dell-idrac9", "System.Embedded.1");
  CHECK(boot_patch(pxe, dell) == boot_patch(pxe));
}

TEST_CASE("a settings object takes the override at the next reset where the BMC allows it",
          "[redfish][actions][dialect]") {
  const json lenovo = captured_system("lenovo-xcc", "1");
  const auto target = settings_target(lenovo);
  REQUIRE(target);
  CHECK(target->path == lenovo["@Redfish.Settings"]["SettingsObject"]["@odata.id"]);
  CHECK(target->apply_times ==
        lenovo["@Redfish.Settings"]["SupportedApplyTimes"].get<std::vector<std::string>>());
  const json boot = boot_patch(BootRequest{BootDevice::pxe, false, std::nullopt});

  auto planned = settings_patch(boot, *target);
  REQUIRE(std::holds_alternative<json>(planned));
  CHECK(std::get<json>(planned)["@Redfish.SettingsApplyTime"]["ApplyTime"] == "OnReset");
  CHECK(std::get<json>(planned)["Boot"] == boot["Boot"]);

  SettingsTarget immediate{"/redfish/v1/Systems/1/Settings",
                           {"Immediate", "AtMaintenanceWindowStart"}};
  CHECK(std::get<json>(settings_patch(
            boot, immediate))["@Redfish.SettingsApplyTime"]["ApplyTime"] == "Immediate");
  SettingsTarget unlisted{"/redfish/v1/Systems/1/Settings", {}};
  CHECK(std::get<json>(settings_patch(boot, unlisted)) == boot);
  SettingsTarget window{"/redfish/v1/Systems/1/Settings", {"AtMaintenanceWindowStart"}};
  auto refused = settings_patch(boot, window);
  REQUIRE(std::holds_alternative<DriverError>(refused));
  CHECK(std::get<DriverError>(refused).code == DriverErrorCode::unsupported);
  CHECK(std::get<DriverError>(refused).message.find("AtMaintenanceWindowStart") !=
        std::string::npos);

  CHECK_FALSE(settings_target(json{{"Id", "1"}}));
  CHECK_FALSE(settings_target(json{{"@Redfish.Settings", {{"SettingsObject", "nope"}}}}));
}

}  // namespace driver_plan_test

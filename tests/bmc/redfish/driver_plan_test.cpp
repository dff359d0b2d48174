// What the Redfish actions send for each request, given what a BMC allows (pure functions).
#include <catch2/catch.hpp>

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

}  // namespace driver_plan_test

// The simulated IPMI BMC against the real clients operators use: ipmitool -I lanplus and
// FreeIPMI, over cipher suites 3 and 17. What they print is compared with the simulator's state,
// set through its own API.
#include "ipmi_tools.hpp"

#include <catch2/catch.hpp>
#include <thread>

// This file's names, apart from those of the other test files compiled with it.
namespace ipmi_tools_test {

using namespace std::chrono_literals;
using ironhold::sim::IpmiFleet;
using ironhold::test::freeipmi;
using ironhold::test::have_tool;
using ironhold::test::ipmi_fleet_options;
using ironhold::test::ipmitool;
using nlohmann::json;

namespace {

// The value of "Key : value" in ipmitool's mc info / fru print, or FreeIPMI's "Key: value".
std::string field(const std::string& output, const std::string& key) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const auto start = line.find_first_not_of(' ');
    if (start == std::string::npos || line.compare(start, key.size(), key) != 0) continue;
    const auto colon = line.find(':', start + key.size());
    if (colon == std::string::npos) continue;
    if (line.find_first_not_of(' ', start + key.size()) != colon) continue;
    const auto value = line.find_first_not_of(' ', colon + 1);
    return value == std::string::npos ? "" : line.substr(value);
  }
  return "<no " + key + ">";
}

// The lines of `output` that contain `needle`.
std::vector<std::string> lines_with(const std::string& output, const std::string& needle) {
  std::vector<std::string> out;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);)
    if (line.find(needle) != std::string::npos) out.push_back(line);
  return out;
}

bool wait_for_power(IpmiFleet& fleet, bool on, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (fleet.state(0).power_on() == on) return true;
    std::this_thread::sleep_for(20ms);
  }
  return fleet.state(0).power_on() == on;
}

bool wait_for_failed_logins(IpmiFleet& fleet, unsigned n, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (fleet.state(0).counters().logins_failed < n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(100ms);
  }
  return true;
}

}  // namespace

TEST_CASE("ipmitool lanplus reads device, power, SDR, SEL and FRU with suites 3 and 17",
          "[sim][ipmi][ipmitool]") {
  if (!have_tool("ipmitool")) return;
  const int suite = GENERATE(3, 17);
  INFO("cipher suite " << suite);
  IpmiFleet fleet(ipmi_fleet_options(2));
  fleet.start();
  auto& bmc = fleet.state(1);

  const auto mc = ipmitool(fleet, suite, {"mc", "info"}, "admin", "password", {}, 1);
  REQUIRE(mc.ok());
  CHECK(field(mc.output, "IPMI Version") == "2.0");
  CHECK(field(mc.output, "Firmware Revision") == "2.15");
  CHECK(field(mc.output, "Manufacturer ID") == "62117");

  CHECK(ipmitool(fleet, suite, {"chassis", "power", "status"}, "admin", "password", {}, 1).output ==
        "Chassis Power is on\n");
  bmc.set_power("off");
  CHECK(ipmitool(fleet, suite, {"chassis", "power", "status"}, "admin", "password", {}, 1).output ==
        "Chassis Power is off\n");

  bmc.set_sensor("Inlet Temp", 43);
  bmc.set_sensor("Fan3", 800);
  const auto sdr = ipmitool(fleet, suite, {"sdr", "elist"}, "admin", "password", {}, 1);
  REQUIRE(sdr.ok());
  for (const json& sensor : bmc.sensors())
    CHECK(lines_with(sdr.output, sensor["name"].get<std::string>()).size() == 1);
  const auto inlet = lines_with(sdr.output, "Inlet Temp");
  REQUIRE(inlet.size() == 1);
  CHECK(inlet[0].find("43 degrees C") != std::string::npos);
  CHECK(inlet[0].find("| unc ") != std::string::npos);  // at or above upper non-critical (40)
  const auto fan = lines_with(sdr.output, "Fan3");
  REQUIRE(fan.size() == 1);
  CHECK(fan[0].find("800 RPM") != std::string::npos);
  CHECK(fan[0].find("| lcr ") != std::string::npos);  // at or below lower critical (1000)
  CHECK(lines_with(sdr.output, "CPU1 Temp").at(0).find("| ok ") != std::string::npos);

  const auto added = bmc.add_sel("PSU1 Status", 1, false);  // failure detected
  const auto sel = ipmitool(fleet, suite, {"sel", "elist"}, "admin", "password", {}, 1);
  REQUIRE(sel.ok());
  CHECK(lines_with(sel.output, " | ").size() == bmc.sel().size());
  const auto psu1 = lines_with(sel.output, "PSU1 Status");
  REQUIRE(psu1.size() == 1);
  CHECK(psu1[0].find("Failure detected") != std::string::npos);
  CHECK(psu1[0].find("Asserted") != std::string::npos);

  const json fru = fleet.describe(1)["fru"];
  const auto print = ipmitool(fleet, suite, {"fru", "print", "0"}, "admin", "password", {}, 1);
  REQUIRE(print.ok());
  CHECK(field(print.output, "Product Serial") == fru["product_serial"].get<std::string>());
  CHECK(field(print.output, "Board Serial") == fru["board_serial"].get<std::string>());
  CHECK(field(print.output, "Chassis Serial") == fru["chassis_serial"].get<std::string>());
  CHECK(field(print.output, "Product Manufacturer") == "Ironhold Simulated");
  CHECK(field(print.output, "Product Asset Tag") == fru["asset_tag"].get<std::string>());
  // Every BMC is a different server.
  CHECK(fleet.describe(0)["fru"]["product_serial"] != fru["product_serial"]);
}

TEST_CASE("ipmitool lanplus power on, off, cycle and bootdev change the simulated chassis",
          "[sim][ipmi][ipmitool]") {
  if (!have_tool("ipmitool")) return;
  const int suite = GENERATE(3, 17);
  INFO("cipher suite " << suite);
  auto options = ipmi_fleet_options();
  options.cycle_delay = 1500ms;
  IpmiFleet fleet(options);
  fleet.start();
  auto& bmc = fleet.state(0);

  REQUIRE(ipmitool(fleet, suite, {"chassis", "power", "off"}).ok());
  CHECK_FALSE(bmc.power_on());
  REQUIRE(ipmitool(fleet, suite, {"chassis", "power", "on"}).ok());
  CHECK(bmc.power_on());
  const auto cycle = ipmitool(fleet, suite, {"chassis", "power", "cycle"});
  REQUIRE(cycle.ok());
  CHECK(cycle.output.find("Cycle") != std::string::npos);
  CHECK(fleet.describe(0)["pending_power"] == "on");  // off now, on after the cycle delay
  CHECK(wait_for_power(fleet, true, 10s));
  const json counters = to_json(bmc.counters());
  CHECK(counters["power_off"] == 1);
  CHECK(counters["power_on"] == 1);
  CHECK(counters["power_cycle"] == 1);

  REQUIRE(ipmitool(fleet, suite, {"chassis", "bootdev", "pxe"}).ok());
  CHECK(bmc.boot_flags() ==
        json{{"device", "pxe"}, {"valid", true}, {"persistent", false}, {"efi", false}});
  REQUIRE(ipmitool(fleet, suite, {"chassis", "bootdev", "disk", "options=persistent"}).ok());
  CHECK(bmc.boot_flags()["device"] == "disk");
  CHECK(bmc.boot_flags()["persistent"] == true);
  const auto param = ipmitool(fleet, suite, {"chassis", "bootparam", "get", "5"});
  REQUIRE(param.ok());
  CHECK(param.output.find("Force Boot from default Hard-Drive") != std::string::npos);
  CHECK(bmc.counters().boot_sets >= 2);
  CHECK(bmc.counters().sessions_opened == bmc.counters().sessions_closed);
}

TEST_CASE("FreeIPMI reads and controls the simulated BMC with suites 3 and 17",
          "[sim][ipmi][freeipmi]") {
  for (const char* tool : {"ipmipower", "ipmi-sensors", "ipmi-sel", "ipmi-fru"})
    if (!have_tool(tool)) return;
  const int suite = GENERATE(3, 17);
  INFO("cipher suite " << suite);
  IpmiFleet fleet(ipmi_fleet_options());
  fleet.start();
  auto& bmc = fleet.state(0);
  const std::string host = fleet.host(0);  // ipmipower names the host without the port

  auto stat = freeipmi(fleet, "ipmipower", suite, {"--stat"});
  REQUIRE(stat.ok());
  CHECK(stat.output == host + ": on\n");
  REQUIRE(freeipmi(fleet, "ipmipower", suite, {"--off"}).ok());
  CHECK_FALSE(bmc.power_on());
  CHECK(freeipmi(fleet, "ipmipower", suite, {"--stat"}).output == host + ": off\n");
  REQUIRE(freeipmi(fleet, "ipmipower", suite, {"--on"}).ok());
  CHECK(bmc.power_on());

  bmc.set_sensor("GPU2 Temp", 91);
  const auto sensors = freeipmi(fleet, "ipmi-sensors", suite, {});
  REQUIRE(sensors.ok());
  for (const json& sensor : bmc.sensors())
    CHECK(lines_with(sensors.output, sensor["name"].get<std::string>()).size() == 1);
  const auto gpu = lines_with(sensors.output, "GPU2 Temp");
  REQUIRE(gpu.size() == 1);
  CHECK(gpu[0].find("91.00") != std::string::npos);
  CHECK(gpu[0].find("Upper Critical") != std::string::npos);

  const auto sel = freeipmi(fleet, "ipmi-sel", suite, {});
  REQUIRE(sel.ok());
  CHECK(lines_with(sel.output, "PSU2 Status").size() == 2);
  CHECK(lines_with(sel.output, "Inlet Temp").size() == 1);

  // ipmi-config writes the boot flags (ipmi-chassis --set-boot-flags in FreeIPMI 1.6.10 fails in
  // the library before it sends anything).
  if (!ironhold::test::find_tool("ipmi-config").empty()) {
    REQUIRE(freeipmi(
                fleet, "ipmi-config", suite,
                {"--category=chassis", "--commit", "--key-pair=Chassis_Boot_Flags:Boot_Device=PXE"})
                .ok());
    CHECK(bmc.boot_flags()["device"] == "pxe");
    CHECK(bmc.boot_flags()["valid"] == true);
  }

  const json fru = fleet.describe(0)["fru"];
  const auto fru_out = freeipmi(fleet, "ipmi-fru", suite, {});
  REQUIRE(fru_out.ok());
  CHECK(field(fru_out.output, "FRU Product Serial Number") ==
        fru["product_serial"].get<std::string>());
  CHECK(field(fru_out.output, "FRU Board Serial Number") == fru["board_serial"].get<std::string>());
  CHECK(field(fru_out.output, "FRU Product Name") == "IH-G8 GPU Server");
}

TEST_CASE("a wrong password, a USER-level power off and suite 1 are refused",
          "[sim][ipmi][ipmitool]") {
  if (!have_tool("ipmitool")) return;
  IpmiFleet fleet(ipmi_fleet_options());
  fleet.start();
  auto& bmc = fleet.state(0);

  // ipmitool finds RAKP 2 does not match its password and stops: the BMC counts the handshake
  // it abandoned once that times out (3 s).
  const auto wrong = ipmitool(fleet, 17, {"chassis", "power", "status"}, "admin", "not-it");
  CHECK_FALSE(wrong.ok());
  CHECK(wrong.output.find("Unable to establish IPMI v2 / RMCP+ session") != std::string::npos);
  CHECK(wait_for_failed_logins(fleet, 1, 10s));
  if (have_tool("ipmipower")) {
    const auto freeipmi_wrong = freeipmi(fleet, "ipmipower", 3, {"--stat"}, "admin", "not-it");
    CHECK(freeipmi_wrong.output.find("password invalid") != std::string::npos);
    CHECK(wait_for_failed_logins(fleet, 2, 10s));
  }
  CHECK(bmc.counters().sessions_opened == 0);

  const auto user_off =
      ipmitool(fleet, 3, {"chassis", "power", "off"}, "readonly", "readonly", {"-L", "USER"});
  CHECK_FALSE(user_off.ok());
  CHECK(user_off.output.find("Insufficient privilege") != std::string::npos);
  CHECK(bmc.power_on());
  CHECK(bmc.counters().power_off == 0);
  // The same account may read.
  CHECK(ipmitool(fleet, 3, {"chassis", "power", "status"}, "readonly", "readonly", {"-L", "USER"})
            .ok());
  // And the operator may act.
  CHECK(ipmitool(fleet, 3, {"chassis", "power", "off"}, "operator", "operator", {"-L", "OPERATOR"})
            .ok());
  CHECK_FALSE(bmc.power_on());

  const auto refused_before = bmc.counters().sessions_refused;
  const auto suite1 = ipmitool(fleet, 1, {"chassis", "power", "status"});
  CHECK_FALSE(suite1.ok());
  CHECK(bmc.counters().sessions_refused > refused_before);
}

}  // namespace ipmi_tools_test

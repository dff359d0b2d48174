// --state-dir for the IPMI simulator: a restarted fleet comes back on the same UDP ports with the
// power state, boot options and SEL it had.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "ipmi_tools.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ipmi_state_dir_test {

using ironhold::sim::IpmiFleet;
using nlohmann::json;
namespace fs = std::filesystem;

TEST_CASE("a restarted IPMI fleet keeps its ports, power, boot options and SEL",
          "[sim][ipmi][state]") {
  const fs::path dir = fs::temp_directory_path() / ("ih-ipmi-state-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto options = ironhold::test::ipmi_fleet_options(2);
  options.state_dir = dir;

  std::vector<std::string> endpoints;
  std::size_t sel_size = 0;
  {
    IpmiFleet fleet(options);
    fleet.start();
    endpoints = {fleet.endpoint(0), fleet.endpoint(1)};
    fleet.state(1).set_power("off");
    fleet.state(1).add_sel("Fan1", 2, false);
    sel_size = fleet.state(1).sel().size();
    if (ironhold::test::have_tool("ipmitool"))
      REQUIRE(ironhold::test::ipmitool(fleet, 17, {"chassis", "bootdev", "cdrom"}, "admin",
                                       "password", {}, 1)
                  .ok());
  }
  CHECK(fs::exists(dir / "bmc-0001" / "state.json"));

  IpmiFleet again(options);
  again.start();
  CHECK(again.endpoint(0) == endpoints[0]);
  CHECK(again.endpoint(1) == endpoints[1]);
  CHECK(again.state(0).power_on());
  CHECK_FALSE(again.state(1).power_on());
  CHECK(again.state(1).sel().size() == sel_size);
  CHECK(again.state(1).sel().back()["sensor_number"] == 8);
  if (ironhold::test::have_tool("ipmitool"))
    CHECK(again.state(1).boot_flags()["device"] == "cdrom");
  fs::remove_all(dir);
}

}  // namespace ipmi_state_dir_test

#pragma once
// What the simulator tests share: the DMTF mockup they serve (skipped without ../shared) and fleet
// options for an in-process fleet on loopback.
#include <catch2/catch.hpp>
#include <filesystem>

#include "sim/redfish/fleet.hpp"

namespace ironhold::test {

inline const std::filesystem::path rackmount_mockup =
    std::filesystem::path(IRONHOLD_SHARED_DIR) / "redfish-mockups" / "public-rackmount1";
inline const std::string rackmount_system = "/redfish/v1/Systems/437XR1138R2";

inline bool have_rackmount_mockup() {
  if (std::filesystem::exists(rackmount_mockup / "index.json")) return true;
  WARN("skipped: no Redfish mockups at " << rackmount_mockup.string());
  return false;
}

inline sim::RedfishFleetOptions fleet_options(unsigned count = 1) {
  sim::RedfishFleetOptions o;
  o.mockup_dir = rackmount_mockup;
  o.count = count;
  o.listen = "127.0.0.1:0";
  o.reset_delay = std::chrono::milliseconds(200);
  return o;
}

}  // namespace ironhold::test

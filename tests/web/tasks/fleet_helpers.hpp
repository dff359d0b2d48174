#pragma once
// What the task tests that drive simulated Redfish BMCs share: a BMC enrolled and made available
// by its first inventory, and how many resets a simulated BMC has accepted.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/redfish/fleet.hpp"
#include "tests/web/poller/poller_helpers.hpp"
#include "tests/web/tasks/task_helpers.hpp"

namespace ironhold::test {

// Enrolls BMC `i` and waits until its first inventory made it available (its NICs are known).
inline std::string enroll_available(TestServer& server, const std::string& token,
                                    sim::RedfishFleet& fleet, std::size_t i,
                                    const std::string& name) {
  const std::string id = enroll_redfish(server, token, name, fleet.endpoint(i));
  const nlohmann::json node = wait_for_node(
      server, token, id, [](const nlohmann::json& n) { return n["lifecycle"] == "available"; });
  REQUIRE(node["lifecycle"] == "available");
  return id;
}

// Every reset BMC `i` accepted, of any ResetType.
inline unsigned all_resets(sim::RedfishFleet& fleet, std::size_t i = 0) {
  unsigned n = 0;
  const nlohmann::json counters = fleet.describe(i)["counters"]["resets"];  // a live object
  for (const auto& [type, count] : counters.items()) n += count.get<unsigned>();
  return n;
}

}  // namespace ironhold::test

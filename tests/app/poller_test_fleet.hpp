#pragma once
// The set-up the poller tests share: simulated Redfish BMCs of the project's compute-server
// mockup, each enrolled through the API of a TestServer that runs no poller of its own (the
// pollers under test are the tests' own).
#include <catch2/catch.hpp>
#include <string>

#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

namespace ironhold::test {

inline sim::RedfishFleetOptions compute_server_fleet(std::size_t count) {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("compute-server");
  o.count = count;
  return o;
}

// Enrolls BMC `index` of `fleet` as the Redfish node `name`.
inline void enroll_simulated(TestServer& server, const sim::RedfishFleet& fleet, std::size_t index,
                             const std::string& name) {
  const auto enrolled =
      http_send(server.port(), "POST", "/api/v1/nodes",
                {{"name", name},
                 {"driver", "redfish"},
                 {"endpoint", fleet.endpoint(index)},
                 {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                server.token("admin"));
  INFO(enrolled.body);
  REQUIRE(enrolled.status == 201);
}

}  // namespace ironhold::test

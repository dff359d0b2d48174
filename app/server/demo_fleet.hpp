#pragma once
#include <string>

#include "app/server/service_host.hpp"

namespace ironhold::app {

// Enrolls the demonstration fleet (skipping nodes that already exist, so a restart keeps them):
// GPU servers in two sites and four racks, Redfish and IPMI, on loopback endpoints.
void seed_demo_fleet(ServiceHost& host);
// A fresh admin token for this demo run.
std::string create_demo_token(ServiceHost& host);

}  // namespace ironhold::app

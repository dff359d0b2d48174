#include "app/server/demo_fleet.hpp"

#include <chrono>

#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::app {

void seed_demo_fleet(ServiceHost& host) {
  const char* sites[] = {"ams1", "fra2"};
  int enrolled = 0;
  for (int s = 0; s < 2; ++s) {
    for (int rack = 1; rack <= 2; ++rack) {
      for (int unit = 1; unit <= 6; ++unit) {
        const int index = (s * 2 + rack - 1) * 6 + unit;
        const bool ipmi = unit % 3 == 0;
        const std::string name = std::string(sites[s]) + "-r" + std::to_string(rack) + "-gpu" +
                                 (unit < 10 ? "0" : "") + std::to_string(unit);
        // Each simulated BMC gets its own loopback address.
        const std::string host_address = "127.0.1." + std::to_string(index);
        nlohmann::json body = {
            {"name", name},
            {"driver", ipmi ? "ipmi" : "redfish"},
            {"endpoint", ipmi ? "ipmi://" + host_address + ":6230" : "http://" + host_address + ":8000"},
            {"credentials", {{"username", "admin"}, {"password", "demo-password"}}},
            {"location", {{"site", sites[s]}, {"rack", "R" + std::to_string(rack)}, {"unit", unit * 4}}},
            {"tags", {{"team", s == 0 ? "research" : "inference"}, {"gpu", unit % 2 ? "H100" : "A100"}}}};
        try {
          host.nodes().create(parse_node_spec(body));
          ++enrolled;
        } catch (const Error& e) {
          if (e.kind() != ErrorKind::conflict) throw;  // already enrolled by an earlier run
        }
      }
    }
  }
  log::info("demo fleet ready", {{"enrolled_now", enrolled}});
}

std::string create_demo_token(ServiceHost& host) {
  const auto name = "demo-admin-" + format_rfc3339(std::chrono::system_clock::now());
  return host.tokens().create(name, Role::admin, "demo").secret;
}

}  // namespace ironhold::app

#pragma once
// What the Redfish driver tests share: the DMTF public-rackmount1 mockup served by the in-process
// simulator over real HTTPS on loopback, an io_context with two threads, and small readers of
// the mockup files (expected values come from them, never from the driver's code).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "inventory/drivers/node_driver.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/bmc/http/io_threads.hpp"

namespace ironhold::test {

namespace fs = std::filesystem;

inline fs::path shared_dir() {
#ifdef IRONHOLD_SHARED_DIR
  return fs::path(IRONHOLD_SHARED_DIR);
#else
  // tests/bmc/redfish/<file> -> the clone -> ../shared
  return fs::path(__FILE__).parent_path().parent_path().parent_path().parent_path().parent_path() /
         "shared";
#endif
}

inline fs::path rackmount_mockup() {
  return shared_dir() / "redfish-mockups" / "public-rackmount1";
}

inline bool have_rackmount_mockup() {
  if (fs::exists(rackmount_mockup() / "index.json")) return true;
  WARN("skipped: no Redfish mockups at " << rackmount_mockup().string());
  return false;
}

// A mockup document by its URL path ("/redfish/v1/Systems/X" -> <dir>/Systems/X/index.json).
inline nlohmann::json mockup_document(const fs::path& dir, const std::string& url) {
  std::string rest = url.substr(std::string("/redfish/v1").size());
  while (!rest.empty() && rest.front() == '/') rest.erase(0, 1);
  std::ifstream in(dir / rest / "index.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

// The first System's path, read from the mockup's Systems collection.
inline std::string mockup_first_system(const fs::path& dir) {
  const auto root = mockup_document(dir, "/redfish/v1");
  const auto systems = mockup_document(dir, root["Systems"]["@odata.id"].get<std::string>());
  std::string path = systems["Members"][0]["@odata.id"].get<std::string>();
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// Waits (a few seconds at most) for the simulator's System to settle in `state`.
inline bool settles_in(sim::redfish::BmcState& bmc, const std::string& system,
                       const std::string& state) {
  for (int i = 0; i < 100; ++i) {
    if (bmc.power_state(system) == state) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

struct SimulatedBmc {
  explicit SimulatedBmc(fs::path mockup = rackmount_mockup(), bool tls = true, unsigned count = 1) {
    sim::RedfishFleetOptions options;
    options.count = count;
    options.mockup_dir = std::move(mockup);
    options.tls = tls;
    options.reset_delay = std::chrono::milliseconds(150);
    fleet = std::make_unique<sim::RedfishFleet>(options);
    fleet->start();
  }

  sim::redfish::BmcState& state(std::size_t i = 0) { return fleet->state(i); }

  DriverTarget target(std::string password = "password", std::size_t i = 0) const {
    DriverTarget t;
    t.node_id = "node-" + std::to_string(i + 1);
    t.node_name = "rack1-u1";
    std::string why;
    const auto endpoint = parse_endpoint(fleet->endpoint(i), why);
    REQUIRE(endpoint);
    t.endpoint = *endpoint;
    t.credentials = Credentials{"admin", std::move(password)};
    return t;
  }

  std::unique_ptr<sim::RedfishFleet> fleet;
};

}  // namespace ironhold::test

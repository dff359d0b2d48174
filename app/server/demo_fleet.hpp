#pragma once
// `ironhold demo`'s fleet: 48 simulated Redfish BMCs from the project's own mockups, a rack of
// 8 IPMI-only servers (fewer or more with --sim-servers and --sim-ipmi-servers), and three
// simulated clouds (OpenStack, EC2, BCC) renting GPU instances, all served by this process (so none
// outlives it or holds a port after a kill -9), their endpoints, certificates and state kept under
// the data directory so that a restart brings them back unchanged, and their nodes enrolled once.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/server/service_host.hpp"
#include "sim/cloud/bcc/bcc_simulator.hpp"
#include "sim/cloud/ec2/ec2_simulator.hpp"
#include "sim/cloud/openstack/openstack_simulator.hpp"
#include "sim/ipmi/fleet.hpp"
#include "sim/redfish/fleet.hpp"

namespace ironhold::app {

struct DemoBmc {
  std::string name, endpoint, site, rack;
  int unit = 0;
  std::string kind;                // "gpu", "compute" or "ipmi"
  std::string driver = "redfish";  // or "ipmi"
};

// What tests of the whole demo (tests/browser/) set; a plain `ironhold demo` keeps the defaults.
struct DemoSimulatorOptions {
  // Serve each simulated fleet's control API (faults, power, health, SEL) on a free loopback port.
  bool control = false;
  // How long a simulated server stays PoweringOff / PoweringOn (and an IPMI one in a cycle).
  std::chrono::milliseconds reset_delay{1000};
  // The Redfish servers (every sixth a compute server, the others GPU servers; at least 6) and the
  // IPMI-only ones (at least 1). Tests whose point is not the fleet's size run a small one.
  unsigned redfish_servers = 48;
  unsigned ipmi_servers = 8;
  // The mockup the GPU servers are made of (empty: the project's hgx-gpu-server): another
  // mockup, or a vendor's capture (tests/data/vendor-captures/*/tree), to run the demo on that
  // BMC's dialect.
  std::filesystem::path gpu_mockup;
};

class DemoFleet {
 public:
  // Starts the simulators. `mockups` holds hgx-gpu-server/ and compute-server/; the Redfish
  // servers' PXE boots fetch their iPXE script from `advertise_url` (plain http://).
  DemoFleet(const std::filesystem::path& data_dir, const std::filesystem::path& mockups,
            const std::string& advertise_url, const DemoSimulatorOptions& simulators = {});
  ~DemoFleet();

  const std::vector<DemoBmc>& bmcs() const { return bmcs_; }
  // With DemoSimulatorOptions::control: each fleet's name ("redfish-gpu", "redfish-compute",
  // "ipmi") and its control API's "http://127.0.0.1:PORT"; empty otherwise. A BMC is found in a
  // fleet's GET /bmcs by its endpoint.
  std::vector<std::pair<std::string, std::string>> control_endpoints() const;
  // One cloud account enrollment body per simulated cloud (POST /api/v1/cloud-accounts).
  const std::vector<nlohmann::json>& cloud_accounts() const { return cloud_accounts_; }

 private:
  void start_clouds();

  std::unique_ptr<sim::RedfishFleet> gpu_, compute_;
  std::unique_ptr<sim::IpmiFleet> ipmi_;
  std::vector<DemoBmc> bmcs_;
  boost::asio::io_context cloud_io_;
  std::unique_ptr<sim::cloud::openstack::OpenStackSimulator> openstack_;
  std::unique_ptr<sim::cloud::ec2::Ec2Simulator> ec2_;
  std::unique_ptr<sim::cloud::bcc::BccSimulator> bcc_;
  std::thread cloud_thread_;
  std::vector<nlohmann::json> cloud_accounts_;
};

// Where the project's mockups are: $IRONHOLD_MOCKUPS, else the source tree this binary was built
// from, else ./mockups. Throws ironhold::Error (invalid) naming the places tried.
std::filesystem::path find_demo_mockups();

// Enrolls the fleet's nodes and cloud accounts (a node or account that exists keeps its id; its
// endpoint follows the simulator's if that moved), so a restart never enrolls twice.
void seed_demo_fleet(ServiceHost& host, const DemoFleet& fleet);
// A fresh admin token for this demo run.
std::string create_demo_token(ServiceHost& host);
// The console's demo user "admin" (an admin of every project) with a fresh random password each
// run; returns the password, which is printed once and never stored in clear.
std::string reset_demo_user(ServiceHost& host);

}  // namespace ironhold::app

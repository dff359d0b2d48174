#pragma once
// N simulated IPMI BMCs on one io_context: what `ironhold sim ipmi` runs and what tests start
// in-process. The command-line conventions are the Redfish simulator's (sim/redfish/fleet.hpp):
// --listen with consecutive ports or --spread-addresses, a state directory, the control API.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "sim/ipmi/simulated_bmc.hpp"
#include "sim/ipmi/udp_server.hpp"
#include "sim/redfish/installer.hpp"

namespace ironhold::sim {

namespace redfish {
class ControlServer;
class StateDir;
}  // namespace redfish

struct IpmiFleetOptions {
  unsigned count = 1;
  // The first BMC's UDP address; the others follow on consecutive ports (port 0: each gets a
  // free port), or with spread_addresses on consecutive addresses with the same port (623).
  std::string listen = "127.0.0.1:0";
  bool spread_addresses = false;
  std::string username = "admin";
  std::string password = "password";
  std::string bmc_key;  // K_G in hex (at most 20 bytes); empty: none
  std::chrono::milliseconds cycle_delay{1000};
  unsigned max_sessions = 16;
  std::chrono::seconds session_timeout{60};
  // Empty: nothing kept. Else each BMC's endpoint and state (power, boot options, SEL) live
  // there; a saved endpoint wins over `listen`.
  std::filesystem::path state_dir;
  // Empty: no control API. Else "HOST:PORT" for the plain-HTTP control API (port 0: a free one).
  std::string control;
  // What a server does when it starts with PXE as its boot device (the same PXE ROM and installer
  // as the Redfish simulator's). Each server's NIC has the MAC 52:54:01 followed by its index.
  redfish::InstallerOptions installer;
};

// The MAC address of BMC `index`'s server's PXE NIC.
std::string ipmi_sim_mac(unsigned index);

class IpmiFleet {
 public:
  // Binds every BMC (throws ironhold::Error on a bad or busy address).
  explicit IpmiFleet(const IpmiFleetOptions& options);
  ~IpmiFleet();  // stops and joins the background thread, if any
  IpmiFleet(const IpmiFleet&) = delete;
  IpmiFleet& operator=(const IpmiFleet&) = delete;

  std::size_t size() const { return bmcs_.size(); }
  // "ipmi://127.0.0.1:20001"
  const std::string& endpoint(std::size_t i) const { return bmc(i).endpoint; }
  const std::string& host(std::size_t i) const { return bmc(i).host; }
  unsigned short port(std::size_t i) const { return bmc(i).port; }
  // Out-of-range `i` throws ironhold::Error (not_found); thread-safe.
  ipmi::SimulatedBmc& state(std::size_t i) { return *bmc(i).state; }
  // {"index", "endpoint", "power", "boot", "faults", "counters", ...}
  nlohmann::json describe(std::size_t i) const;
  // "http://127.0.0.1:PORT" of the control API, or empty without one.
  const std::string& control_endpoint() const { return control_endpoint_; }

  void run();    // serves on this thread until stop()
  void start();  // serves on a background thread
  void stop();   // thread-safe
  boost::asio::io_context& io() { return io_; }

 private:
  struct Bmc {
    std::unique_ptr<ipmi::SimulatedBmc> state;
    std::unique_ptr<ipmi::UdpServer> server;
    std::string endpoint, host;
    unsigned short port = 0;
  };
  Bmc& bmc(std::size_t i) const;
  void add_bmc(unsigned index, const IpmiFleetOptions& options,
               const boost::asio::ip::udp::endpoint& wanted);

  std::unique_ptr<redfish::StateDir> state_dir_;  // before io_: outlives every BMC that saves
  boost::asio::io_context io_;
  std::vector<std::unique_ptr<Bmc>> bmcs_;
  std::unique_ptr<redfish::Installer> installer_;  // after io_: destroyed before it
  std::unique_ptr<redfish::ControlServer> control_;
  std::string control_endpoint_;
  std::thread thread_;
};

// `ironhold sim ipmi`: starts the fleet, prints one JSON line per BMC on `out`
// ({"endpoint": "ipmi://...", "username": ..., "password": ...}), serves until SIGINT/SIGTERM,
// returns 0. Errors at start are ironhold::Error.
int run_ipmi_fleet(const IpmiFleetOptions& options, std::ostream& out);

}  // namespace ironhold::sim

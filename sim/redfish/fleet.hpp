#pragma once
// N simulated Redfish BMCs from one mockup, all on one io_context: what `ironhold sim redfish`
// runs, and what tests start in-process.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "sim/redfish/bmc_state.hpp"
#include "sim/redfish/redfish_server.hpp"

namespace ironhold::sim {

struct RedfishFleetOptions {
  std::filesystem::path mockup_dir;
  unsigned count = 1;
  // The first BMC's address; the others follow on consecutive ports (port 0: each gets a free
  // port), or with spread_addresses on consecutive addresses with the same port.
  std::string listen = "127.0.0.1:0";
  bool spread_addresses = false;
  std::string username = "admin";
  std::string password = "password";
  bool tls = true;
  std::chrono::milliseconds reset_delay{1000};
};

// The addresses the BMCs bind, in order; throws ironhold::Error (invalid) for a bad HOST:PORT, a
// port range past 65535 or an address range leaving 127.0.0.0/8 (or IPv4) with spread_addresses.
std::vector<boost::asio::ip::tcp::endpoint> fleet_endpoints(const std::string& listen, unsigned count,
                                                            bool spread_addresses);

class RedfishFleet {
 public:
  // Loads the mockup and binds every BMC (throws ironhold::Error on a bad mockup or address).
  explicit RedfishFleet(const RedfishFleetOptions& options);
  ~RedfishFleet();  // stops and joins the background thread, if any
  RedfishFleet(const RedfishFleet&) = delete;
  RedfishFleet& operator=(const RedfishFleet&) = delete;

  std::size_t size() const { return bmcs_.size(); }
  // "https://127.0.0.1:20001"
  const std::string& endpoint(std::size_t i) const { return bmcs_.at(i)->endpoint; }
  redfish::BmcState& state(std::size_t i) { return *bmcs_.at(i)->state; }

  void run();    // serves on this thread until stop()
  void start();  // serves on a background thread
  void stop();   // thread-safe
  boost::asio::io_context& io() { return io_; }

 private:
  struct Bmc {
    std::unique_ptr<redfish::BmcState> state;
    std::unique_ptr<redfish::RedfishServer> server;
    std::string endpoint;
  };
  boost::asio::io_context io_;
  std::vector<std::unique_ptr<Bmc>> bmcs_;
  std::thread thread_;
};

// `ironhold sim redfish`: starts the fleet, prints one JSON line per BMC on `out`
// ({"endpoint": ..., "username": ..., "password": ...}), serves until SIGINT/SIGTERM, returns 0.
// Errors at start are ironhold::Error.
int run_redfish_fleet(const RedfishFleetOptions& options, std::ostream& out);

}  // namespace ironhold::sim

#pragma once
// N simulated Redfish BMCs from one mockup, all on one io_context: what `ironhold sim redfish`
// runs, and what tests start in-process. Optionally with the control API (control_api.hpp) on its
// own loopback port and a state directory (state_dir.hpp) that keeps endpoints, certificates and
// state across restarts.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "sim/redfish/bmc_state.hpp"
#include "sim/redfish/event_sender.hpp"
#include "sim/redfish/installer.hpp"
#include "sim/redfish/redfish_server.hpp"
#include "sim/redfish/ssh_consoles.hpp"
#include "sim/redfish/state_dir.hpp"
#include "sim/redfish/update_methods.hpp"
#include "sim/redfish/updater.hpp"

namespace ironhold::sim {

namespace redfish {
class ControlServer;
}

struct RedfishFleetOptions {
  // One mockup directory, or a list "DIR:COUNT,DIR:COUNT" (then `count` is ignored): the BMCs
  // of each group in order, numbered across the fleet.
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
  // Empty: nothing kept. Else each BMC's endpoint, certificate and state live there; a saved
  // endpoint wins over `listen`, and one that cannot be bound now is an error naming it.
  std::filesystem::path state_dir;
  // Empty: no control API. Else "HOST:PORT" for the plain-HTTP control API (port 0: a free one).
  std::string control;
  // What a restart into a PXE boot finds (see installer.hpp): the script URL the site's DHCP
  // would hand out, and how long the simulated install takes.
  redfish::InstallerOptions installer;
  // How long an update's Task runs once the image is downloaded or pushed (see updater.hpp).
  redfish::UpdaterOptions updater;
  // What every BMC's UpdateService offers: SimpleUpdate, a multipart push or both (see
  // update_methods.hpp); nothing: what each mockup declares.
  std::optional<redfish::UpdateMethods> update_methods;
  // How the EventServices deliver events (see event_sender.hpp): events.retry_interval replaces
  // each mockup's DeliveryRetryIntervalSeconds (60 s) between a failed delivery and its retry.
  redfish::EventSenderOptions events;
  // Each BMC's SSH serial console (ssh_consoles.hpp) on its own address, advertised in its
  // Manager's SerialConsole.SSH; with state_dir, its host key is kept there. Off by default
  // here (a socket and a key per BMC); `ironhold sim redfish` and the demo turn it on.
  bool ssh_consoles = false;
  redfish::SshConsoleOptions ssh;
};

// The addresses the BMCs bind, in order; throws ironhold::Error (invalid) for a bad HOST:PORT, a
// port range past 65535 or an address range leaving 127.0.0.0/8 (or IPv4) with spread_addresses.
std::vector<boost::asio::ip::tcp::endpoint> fleet_endpoints(const std::string& listen,
                                                            unsigned count, bool spread_addresses);

// The (mockup, how many) groups `spec` names: a plain directory gives {spec, count}; a list
// "DIR:N,DIR:N" gives its groups. Throws ironhold::Error (invalid) for a malformed list or a
// count of 0.
std::vector<std::pair<std::filesystem::path, unsigned>> mockup_groups(const std::string& spec,
                                                                      unsigned count);

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
  redfish::RedfishServer& server(std::size_t i) { return *bmcs_.at(i)->server; }
  bool tls() const { return tls_; }

  // The control side, also what the control API calls; all thread-safe. Out-of-range `i` throws
  // ironhold::Error (not_found).
  void set_faults(std::size_t i, const redfish::Faults& faults) {
    bmc(i).state->set_faults(faults);
  }
  void clear_faults(std::size_t i) { bmc(i).state->set_faults({}); }
  // A new key and certificate for BMC i (kept in the state dir); returns its SHA-256 fingerprint.
  // ironhold::Error (conflict) for a plain-HTTP fleet.
  std::string change_certificate(std::size_t i);
  std::string certificate_fingerprint(std::size_t i) const;  // empty for plain HTTP
  // {"index", "endpoint", "certificate_sha256", "systems": [...], "faults": [...], "counters", ...}
  nlohmann::json describe(std::size_t i) const;
  // The SSH serial console's port (0 without consoles), its host key's fingerprint ("SHA256:..."),
  // and a new host key (returns its fingerprint; ironhold::Error conflict without consoles).
  unsigned ssh_console_port(std::size_t i) const;
  std::string ssh_host_key_fingerprint(std::size_t i) const;
  std::string change_ssh_host_key(std::size_t i);
  // "http://127.0.0.1:PORT" of the control API, or empty without one.
  const std::string& control_endpoint() const { return control_endpoint_; }

  void run();    // serves on this thread until stop()
  void start();  // serves on a background thread
  void stop();   // thread-safe
  boost::asio::io_context& io() { return io_; }

 private:
  struct Bmc {
    std::unique_ptr<redfish::BmcState> state;
    std::unique_ptr<redfish::RedfishServer> server;
    std::string endpoint;
    std::string address;  // the bound IP, for new certificates' subjectAltName
  };
  Bmc& bmc(std::size_t i) const;
  void add_bmc(unsigned index, const redfish::Mockup& mockup, const RedfishFleetOptions& options,
               const boost::asio::ip::tcp::endpoint& wanted);

  bool tls_ = true;
  std::unique_ptr<redfish::StateDir> state_dir_;  // before io_: outlives every BMC that saves
  boost::asio::io_context io_;
  std::vector<std::unique_ptr<Bmc>> bmcs_;
  std::unique_ptr<redfish::Installer> installer_;  // after io_: destroyed before it
  std::unique_ptr<redfish::Updater> updater_;
  std::unique_ptr<redfish::EventSender> events_;
  std::unique_ptr<redfish::ControlServer> control_;
  std::unique_ptr<redfish::SshConsoles> ssh_;  // null without SSH consoles
  std::string control_endpoint_;
  std::thread thread_;
};

// `ironhold sim redfish`: starts the fleet, prints one JSON line per BMC on `out`
// ({"endpoint": ..., "username": ..., "password": ...}), serves until SIGINT/SIGTERM, returns 0.
// Errors at start are ironhold::Error.
int run_redfish_fleet(const RedfishFleetOptions& options, std::ostream& out);

}  // namespace ironhold::sim

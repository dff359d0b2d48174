#pragma once
// What a simulated server does after it restarts into a one-time PXE boot: its PXE ROM asks the
// URL the site's DHCP would hand out (pxe_url, with iPXE's ${net0/mac} replaced by its MAC) for
// an iPXE script, and the "installer" that script boots calls back after install_time with the
// token the script carried — so Ironhold's reprovisioning runs end to end against simulators.
// Plain HTTP only (what PXE clients mostly speak). Outcomes are kept per BMC for describe().
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/redfish/faults.hpp"

namespace ironhold::sim::redfish {

struct InstallerOptions {
  // "http://10.0.0.5:8080/api/v1/provisioning/ipxe?mac=${net0/mac}"; empty: nothing answers
  // the PXE boot (as on a network without DHCP boot options), the server boots from its disk.
  std::string pxe_url;
  std::chrono::milliseconds install_time{3000};
};

// A System's restart into a one-time network boot, as BmcState reports it.
struct NetworkBoot {
  unsigned bmc = 0;                          // the fleet's index of the BMC
  std::string system;                        // the System's @odata.id
  std::vector<std::string> macs;             // its NICs', the first is the one that boots
  std::chrono::milliseconds powering_on{0};  // until the System is On
  Faults faults;                             // the BMC's at the moment of the restart
};

class Installer {
 public:
  Installer(boost::asio::io_context& io, InstallerOptions options);

  // Starts the boot on the io_context; returns at once (callable under BmcState's lock).
  void boot(NetworkBoot boot);
  // {"boots", "callbacks", "last": {"at", "mac", "outcome", ...}} for BMC `bmc`.
  nlohmann::json describe(unsigned bmc) const;
  const InstallerOptions& options() const { return options_; }

 private:
  boost::asio::awaitable<void> run(NetworkBoot boot);
  void record(unsigned bmc, nlohmann::json outcome, bool called_back);

  boost::asio::io_context& io_;
  InstallerOptions options_;
  mutable std::mutex mutex_;
  struct Record {
    unsigned boots = 0;
    unsigned callbacks = 0;
    nlohmann::json last = nullptr;
  };
  std::map<unsigned, Record> records_;
};

// The settings an iPXE script sets ("set NAME VALUE" lines), by name.
std::map<std::string, std::string> ipxe_settings(const std::string& script);

}  // namespace ironhold::sim::redfish

#pragma once
// What a simulated server does after it restarts into a one-time PXE boot: its PXE ROM asks the
// URL the site's DHCP would hand out (pxe_url, with iPXE's ${net0/mac} replaced by its MAC) for
// an iPXE script, and the "installer" that script boots calls back after install_time with the
// token the script carried — so Ironhold's reprovisioning runs end to end against simulators.
// After a restart into a boot from the virtual CD, it reads the mounted image's first 64 KiB
// (a ranged GET) and the installer on it asks that image's server for its settings by MAC.
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
  // A boot from the virtual CD: the image mounted there (else a PXE boot). The installer on it
  // reads the whole image, then asks the service that served it for its settings by MAC
  // (/api/v1/provisioning/config), as an installer ISO built for that site does.
  std::string media_url;
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
  boost::asio::awaitable<void> run_from_media(NetworkBoot boot);
  // The install itself (install_time, the faults) and the call-back with `token`.
  boost::asio::awaitable<void> install_and_call_back(NetworkBoot boot, std::string callback,
                                                     std::string token, nlohmann::json outcome);
  // How much of a mounted image a CD boot reads: its system area and volume descriptors.
  static constexpr std::size_t kMediaBytesRead = 64 * 1024;
  // Call-backs that get no answer (or a 5xx) are sent again a second later, this many times.
  static constexpr int kCallbackAttempts = 60;
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

#pragma once
// The SSH serial consoles of a simulated Redfish fleet, as BMCs offer them beside Redfish
// (OpenBMC's obmc-console on port 2200, a vendor's `console com2` in its SSH CLI): per BMC a
// listening socket on the BMC's own address and an Ed25519 host key of its own, served with
// libssh's server API. A login is the BMC's account (password only); the session asks for a pty
// and a shell, and then is the host's serial port (BmcState::console_*): keys typed reach the
// HostConsole, what the host prints comes back.
//
// With an entry command, the shell is the BMC's CLI first (a "->" prompt) and the console starts
// once that command is typed, as on BMCs whose SerialConsole.SSH says SharedWithManagerCLI.
// One session holds a BMC's console at a time: a newer one takes it over, and the older one is
// told so and closed (what BMCs with MaxConcurrentSessions 1 do).
//
// Threads: one accepts for the whole fleet; each connection has its own while it lasts.
#include <boost/asio/ip/address.hpp>
#include <filesystem>
#include <memory>
#include <string>

namespace ironhold::sim::redfish {

class BmcState;

struct SshConsoleOptions {
  std::string entry_command;  // empty: the console right after login
};

class SshConsoles {
 public:
  explicit SshConsoles(SshConsoleOptions options = {});
  ~SshConsoles();  // stop()
  SshConsoles(const SshConsoles&) = delete;
  SshConsoles& operator=(const SshConsoles&) = delete;

  // Listens for `bmc` on `address` (a free port) with the host key in `key_file`, made there when
  // the file does not exist (an empty path: a key of this run only), and advertises the console
  // in the BMC's Manager. Returns the port. Before start(). Throws ironhold::Error (invalid) when
  // the address cannot be bound or the key file cannot be read or written.
  unsigned add(BmcState& bmc, const boost::asio::ip::address& address,
               const std::filesystem::path& key_file);
  void start();
  void stop();  // closes every session; thread-safe

  unsigned port(std::size_t i) const;
  // The host key's fingerprint as OpenSSH prints it ("SHA256:" + unpadded base64).
  std::string host_key_fingerprint(std::size_t i) const;
  // A new host key for BMC i (written over its key file); returns its fingerprint. Sessions
  // already open keep theirs.
  std::string change_host_key(std::size_t i);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ironhold::sim::redfish

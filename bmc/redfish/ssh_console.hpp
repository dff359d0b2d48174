#pragma once
// The SSH serial console many Redfish BMCs offer beside Redfish (Manager.SerialConsole.SSH):
// OpenBMC's obmc-console on its own port, or the BMC's SSH CLI with a command that enters the
// console (ConsoleEntryCommand: "console com2", "start /system1/sol1").
//
// libssh is blocking, so each console has a thread of its own: it connects, checks the host key,
// logs in with the BMC's credentials (password, or keyboard-interactive answered with it), asks
// for a pty and a shell, types the entry command, and then moves bytes both ways until either
// side ends. Keys written from any thread wait in an outbox the thread sends; an eventfd wakes it.
//
// The host key is checked before the password is sent: a BMC whose key is not the pinned one
// never sees the credentials (tls_pin_mismatch). Without a pin, the caller pins what was
// presented (trust on first use, as with the BMC's TLS certificate).
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::redfish {

struct SshConsoleParams {
  std::string host;  // an IP address or name, without brackets
  unsigned port = 22;
  std::string username, password;
  std::string entry_command;                   // typed (with Enter) once the shell is open
  std::optional<std::string> pinned_host_key;  // "SHA256:..." as OpenSSH prints it
  std::chrono::seconds timeout{10};            // connect, and each step of the login
};

struct SshConsoleOpened {
  std::shared_ptr<NodeConsole> console;  // null on error
  std::optional<DriverError> error;
  // The key the BMC presented ("SHA256:..."), once the key exchange got that far.
  std::optional<std::string> host_key;
};

// Opens it on a thread of its own; completes on the caller's executor. Never throws.
boost::asio::awaitable<SshConsoleOpened> open_ssh_console(SshConsoleParams params,
                                                          ConsoleEvents events);

}  // namespace ironhold::bmc::redfish

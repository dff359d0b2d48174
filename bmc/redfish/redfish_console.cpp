// RedfishDriver::open_console: the Manager says where the SSH serial console is
// (serial_console_service.hpp); ssh_console.hpp opens it on the BMC's address with its
// credentials.
#include "bmc/redfish/redfish_driver.hpp"
#include "bmc/redfish/serial_console_service.hpp"
#include "bmc/redfish/ssh_console.hpp"

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;

asio::awaitable<ConsoleOpenReport> RedfishDriver::open_console(const DriverTarget& target,
                                                               std::string system_id,
                                                               ConsoleEvents events) {
  ConsoleOpenReport report;
  report.protocol = "ssh";
  auto resolved = resolve_target(target);
  if (auto* e = std::get_if<DriverError>(&resolved)) {
    report.error = std::move(*e);
    co_return report;
  }
  if (!target.credentials) {
    report.error = DriverError{DriverErrorCode::auth_failed,
                               "the node has no BMC credentials for its SSH serial console"};
    co_return report;
  }
  RedfishConnection connection(client_, sessions_, options_.transport,
                               std::get<RedfishTarget>(std::move(resolved)));
  auto found = co_await find_ssh_console_service(connection, std::move(system_id));
  report.tls_fingerprint = connection.fingerprint();
  if (auto* e = std::get_if<DriverError>(&found)) {
    report.error = std::move(*e);
    co_return report;
  }
  const auto& service = std::get<SshConsoleService>(found);
  SshConsoleParams params;
  params.host = target.endpoint.host;
  params.port = service.port;
  params.username = target.credentials->username;
  params.password = target.credentials->password;
  params.entry_command = service.entry_command;
  params.pinned_host_key = target.pinned_ssh_host_key;
  SshConsoleOpened opened = co_await open_ssh_console(std::move(params), std::move(events));
  report.ssh_host_key = std::move(opened.host_key);
  report.error = std::move(opened.error);
  report.console = std::move(opened.console);
  co_return report;
}

}  // namespace ironhold::bmc::redfish

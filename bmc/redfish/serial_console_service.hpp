#pragma once
// Where a Redfish BMC offers the host's serial console over SSH, read from the Manager that
// manages the System: SerialConsole.SSH (Manager v1.10+: ServiceEnabled, Port,
// ConsoleEntryCommand), or an older SerialConsole whose ConnectTypesSupported lists "SSH", on the
// port of the Manager's NetworkProtocol SSH (22 when it says none).
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "bmc/redfish/redfish_transport.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::redfish {

struct SshConsoleService {
  unsigned port = 22;
  std::string entry_command;  // empty: the console right after login
};

// Pure: from the Manager document and, when the Manager links one, its ManagerNetworkProtocol
// (nullptr when not read). `unsupported` says why there is none.
std::variant<SshConsoleService, DriverError> ssh_console_service(
    const nlohmann::json& manager, const nlohmann::json* network_protocol);

// Reads the Manager of System `system_id` (empty: the first System), else the first Manager.
boost::asio::awaitable<std::variant<SshConsoleService, DriverError>> find_ssh_console_service(
    RedfishConnection& connection, std::string system_id);

}  // namespace ironhold::bmc::redfish

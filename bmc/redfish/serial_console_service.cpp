#include "bmc/redfish/serial_console_service.hpp"

#include <algorithm>

#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/resources.hpp"

namespace ironhold::bmc::redfish {

using nlohmann::json;

namespace {

DriverError none(const std::string& why) {
  return {DriverErrorCode::unsupported, why};
}

std::optional<unsigned> read_port(const json* object) {
  const auto port = read_number(object, "Port");
  if (!port || *port < 1 || *port > 65535 || *port != static_cast<unsigned>(*port))
    return std::nullopt;
  return static_cast<unsigned>(*port);
}

}  // namespace

std::variant<SshConsoleService, DriverError> ssh_console_service(const json& manager,
                                                                 const json* network_protocol) {
  const json* serial = read_object(&manager, "SerialConsole");
  if (serial == nullptr) return none("the BMC's Manager advertises no SerialConsole");
  const json* ssh = read_object(serial, "SSH");
  if (ssh != nullptr) {
    if (read_bool(ssh, "ServiceEnabled") == false)
      return none(
          "the BMC's SSH serial console is switched off (SerialConsole.SSH.ServiceEnabled "
          "is false)");
    SshConsoleService service;
    service.port = read_port(ssh).value_or(22);
    service.entry_command = read_string(ssh, "ConsoleEntryCommand").value_or("");
    return service;
  }
  // Before Manager v1.10: a list of protocols, with SSH on the BMC's own SSH port.
  if (read_bool(serial, "ServiceEnabled") == false)
    return none("the BMC's serial console is switched off (SerialConsole.ServiceEnabled is false)");
  const json* types = read_array(serial, "ConnectTypesSupported");
  if (types == nullptr || std::find(types->begin(), types->end(), json("SSH")) == types->end())
    return none("the BMC offers its serial console over no SSH (ConnectTypesSupported: " +
                (types ? types->dump() : std::string("none")) + ")");
  SshConsoleService service;
  const json* protocol_ssh = network_protocol ? read_object(network_protocol, "SSH") : nullptr;
  if (protocol_ssh && read_bool(protocol_ssh, "ProtocolEnabled") == false)
    return none("the BMC's SSH is switched off (NetworkProtocol SSH.ProtocolEnabled is false)");
  service.port = read_port(protocol_ssh).value_or(22);
  return service;
}

boost::asio::awaitable<std::variant<SshConsoleService, DriverError>> find_ssh_console_service(
    RedfishConnection& connection, std::string system_id) {
  std::string systems = "Systems";
  Found system = co_await find_member(connection, std::move(systems), std::move(system_id));
  if (auto* e = std::get_if<DriverError>(&system)) co_return std::move(*e);
  const auto managers =
      read_links(read_object(&std::get<Resource>(system).doc, "Links"), "ManagedBy");
  Found manager = DriverError{};
  if (!managers.empty()) {
    std::string path = managers.front();
    manager = co_await get_resource(connection, std::move(path));
  } else {
    std::string collection = "Managers";
    std::string first;
    manager = co_await find_member(connection, std::move(collection), std::move(first));
  }
  if (auto* e = std::get_if<DriverError>(&manager)) co_return std::move(*e);
  const json& doc = std::get<Resource>(manager).doc;
  // The NetworkProtocol only matters to the older form, which names no port.
  std::optional<json> protocol;
  const json* serial = read_object(&doc, "SerialConsole");
  if (serial && !read_object(serial, "SSH")) {
    const json* link = property(doc, "NetworkProtocol");
    const std::string path = link ? id_of(*link) : std::string();
    if (!path.empty()) {
      std::string wanted = path;
      Found read = co_await get_resource(connection, std::move(wanted));
      if (auto* r = std::get_if<Resource>(&read)) protocol = std::move(r->doc);
    }
  }
  co_return ssh_console_service(doc, protocol ? &*protocol : nullptr);
}

}  // namespace ironhold::bmc::redfish

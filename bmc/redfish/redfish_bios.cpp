// RedfishDriver's BIOS settings (bios.hpp), through a connection of its own like the other
// actions.
#include "bmc/redfish/bios.hpp"
#include "bmc/redfish/redfish_driver.hpp"
#include "bmc/redfish/with_connection.hpp"

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;

asio::awaitable<BiosReport> RedfishDriver::read_bios(const DriverTarget& target,
                                                     std::string system_id) {
  auto act = [system_id](RedfishConnection& connection) {
    return redfish::read_bios(connection, system_id);
  };
  auto acting = with_connection<BiosReport>(target, std::move(act));
  co_return co_await std::move(acting);
}

asio::awaitable<ActionReport> RedfishDriver::write_bios(const DriverTarget& target,
                                                        std::string system_id, BiosChange change) {
  auto act = [system_id, change](RedfishConnection& connection) {
    return redfish::write_bios(connection, system_id, change);
  };
  auto acting = with_connection(target, std::move(act));
  co_return co_await std::move(acting);
}

}  // namespace ironhold::bmc::redfish

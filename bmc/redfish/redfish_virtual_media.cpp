// RedfishDriver's virtual media: the System's virtual CD (virtual_media.hpp), through a
// connection of its own like the other actions.
#include "bmc/redfish/redfish_driver.hpp"
#include "bmc/redfish/virtual_media.hpp"
#include "bmc/redfish/with_connection.hpp"

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;

asio::awaitable<ActionReport> RedfishDriver::insert_virtual_media(const DriverTarget& target,
                                                                  std::string system_id,
                                                                  std::string image_url) {
  auto act = [system_id, image_url](RedfishConnection& connection) {
    return redfish::insert_virtual_media(connection, system_id, image_url);
  };
  auto acting = with_connection(target, std::move(act));
  co_return co_await std::move(acting);
}

asio::awaitable<ActionReport> RedfishDriver::eject_virtual_media(const DriverTarget& target,
                                                                 std::string system_id) {
  auto act = [system_id](RedfishConnection& connection) {
    return redfish::eject_virtual_media(connection, system_id);
  };
  auto acting = with_connection(target, std::move(act));
  co_return co_await std::move(acting);
}

}  // namespace ironhold::bmc::redfish

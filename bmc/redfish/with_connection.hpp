#pragma once
// RedfishDriver::with_connection: an action through a connection of its own to the target, for
// the driver's files that act on one node (virtual media, BIOS). A target that cannot be resolved
// comes back as the report's error.
#include "bmc/redfish/redfish_driver.hpp"

namespace ironhold::bmc::redfish {

template <class Report, class Act>
boost::asio::awaitable<Report> RedfishDriver::with_connection(const DriverTarget& target, Act act) {
  auto resolved = resolve_target(target);
  if (auto* e = std::get_if<DriverError>(&resolved)) {
    Report report;
    report.error = std::move(*e);
    co_return report;
  }
  RedfishConnection connection(client_, sessions_, options_.transport,
                               std::get<RedfishTarget>(std::move(resolved)));
  auto acting = act(connection);  // not inside the co_await (GCC 12)
  co_return co_await std::move(acting);
}

}  // namespace ironhold::bmc::redfish

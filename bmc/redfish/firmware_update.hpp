#pragma once
// Firmware updates over Redfish: UpdateService.SimpleUpdate with a URL the BMC downloads the image
// from, followed through the Task the BMC creates for it (its task monitor, or the Task resource
// itself, which is what most BMCs put in Location). The reading of request and answers is pure
// (simple_update_body, read_update_task) so it is tested without a BMC.
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "bmc/redfish/redfish_transport.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::redfish {

// The SimpleUpdate body for `action` (the "#UpdateService.SimpleUpdate" object): ImageURI, and
// TransferProtocol when the action lists the protocols it takes (then the URL's scheme must be
// one of them, else `unsupported` naming them).
std::variant<nlohmann::json, DriverError> simple_update_body(const nlohmann::json& action,
                                                             const std::string& image_url);

// How an update stands from one answer of its task monitor or Task: 202 or a Task still going is
// running; a Task Completed is completed (awaits_reset when a message says the new firmware waits
// for a reset: Update.1.x.AwaitToActivate); Exception, Killed and Cancelled are failed; the final
// answer of a task monitor without a Task body is completed; 404 and 410 are gone.
FirmwareUpdateReport read_update_task(long status, const nlohmann::json& body);

boost::asio::awaitable<FirmwareUpdateReport> start_simple_update(RedfishConnection& connection,
                                                                 FirmwareUpdateRequest request);
boost::asio::awaitable<FirmwareUpdateReport> read_update_status(RedfishConnection& connection,
                                                                std::string monitor);
// The TaskService's task whose payload carries `image_url`'s path and query (the newest first;
// the host may have changed), else gone.
boost::asio::awaitable<FirmwareUpdateReport> find_update_task(RedfishConnection& connection,
                                                              std::string image_url);

}  // namespace ironhold::bmc::redfish

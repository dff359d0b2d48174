#pragma once
// Firmware updates over Redfish: UpdateService.SimpleUpdate with a URL the BMC downloads the image
// from (pull), or the image sent to the UpdateService's MultipartHttpPushUri (push), followed
// through the Task the BMC creates for it (its task monitor, or the Task resource itself, which is
// what most BMCs put in Location). The reading of request and answers is pure (choose_update,
// simple_update_body, read_update_task, is_pushed_update) so it is tested without a BMC.
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "bmc/redfish/redfish_transport.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::redfish {

// The SimpleUpdate body for `action` (the "#UpdateService.SimpleUpdate" object): ImageURI, and
// TransferProtocol when the action lists the protocols it takes (then the URL's scheme must be
// one of them, else `unsupported` naming them).
std::variant<nlohmann::json, DriverError> simple_update_body(const nlohmann::json& action,
                                                             const std::string& image_url);

// How an update will be sent, from the UpdateService resource.
struct UpdatePlan {
  FirmwareTransfer transfer = FirmwareTransfer::pull;  // pull or push, never automatic
  std::string target;   // the SimpleUpdate action's target or the MultipartHttpPushUri path
  nlohmann::json body;  // pull: the SimpleUpdate body
};
// `wanted` automatic takes the pull when SimpleUpdate takes `image_url` (not empty, a scheme it
// lists), else the push when the service has a MultipartHttpPushUri. Otherwise `unsupported`,
// saying what the BMC offers and why it does not fit.
std::variant<UpdatePlan, DriverError> choose_update(const nlohmann::json& update_service,
                                                    FirmwareTransfer wanted,
                                                    const std::string& image_url);

// The parts of a push (DMTF DSP0266 "Multipart HTTP push updates"): UpdateParameters, a JSON
// object leaving the targets and the apply time to the service, and UpdateFile, the image.
std::vector<http::FormPart> push_parts(const std::string& file, const std::string& image_name);
// How long a push of `size` bytes may take: BMCs take images slowly (a few hundred KiB/s is
// common while they write flash), so the usual request timeout would cut them off.
std::chrono::milliseconds push_timeout(std::int64_t size);

// Whether `task` (a Task resource) is the BMC's task for a push sent to `push_uri`, given the
// tasks the BMC had before it was sent: a task not among them whose payload targets the push URI
// (or that has no payload: many BMCs leave it out).
bool is_pushed_update(const nlohmann::json& task, const std::string& task_path,
                      const std::string& push_uri, const std::vector<std::string>& tasks_before);

// How an update stands from one answer of its task monitor or Task: 202 or a Task still going is
// running; a Task Completed is completed (awaits_reset when a message says the new firmware waits
// for a reset: Update.1.x.AwaitToActivate); Exception, Killed and Cancelled are failed; the final
// answer of a task monitor without a Task body is completed; 404 and 410 are gone.
FirmwareUpdateReport read_update_task(long status, const nlohmann::json& body);

boost::asio::awaitable<FirmwareUpdateReport> start_update(RedfishConnection& connection,
                                                          FirmwareUpdateRequest request);
boost::asio::awaitable<FirmwareUpdateReport> read_update_status(RedfishConnection& connection,
                                                                std::string monitor);
// The BMC's task for an update whose start was recorded as `sent` (what before_send got): for a
// pull, the TaskService's task whose payload carries `request.image_url`'s path and query (the
// newest first; the host may have changed); for a push, one is_pushed_update finds. Else gone.
boost::asio::awaitable<FirmwareUpdateReport> find_update_task(RedfishConnection& connection,
                                                              FirmwareUpdateRequest request,
                                                              nlohmann::json sent);

}  // namespace ironhold::bmc::redfish

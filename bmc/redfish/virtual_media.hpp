#pragma once
// Redfish virtual media: a BMC mounting an ISO from a URL as the server's CD, so that it boots an
// installer with no DHCP or PXE in the way. The slot is the first VirtualMedia member whose
// MediaTypes has CD or DVD, found through the System (VirtualMedia moved there in newer schemas)
// or the Manager that manages it. Mounting is VirtualMedia.InsertMedia (a PATCH of Image and
// Inserted where the BMC has no such action), checked by reading the slot back; ejecting is
// EjectMedia (or the PATCH back). Both are idempotent, so a resumed task may send them again.
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bmc/redfish/redfish_transport.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::redfish {

struct MediaSlot {
  std::string path;
  bool inserted = false;
  std::string image;          // what is mounted ("" when nothing)
  std::string insert_target;  // the InsertMedia action's target; empty: PATCH
  std::string eject_target;
  // TransferProtocolType@Redfish.AllowableValues of InsertMedia, when it lists them.
  std::optional<std::vector<std::string>> transfer_protocols;
};

// The slot a VirtualMedia document describes, when it takes a CD or DVD.
std::optional<MediaSlot> cd_slot(const nlohmann::json& media);
// InsertMedia's body: the image, inserted, write-protected, and the transfer protocol only when
// the BMC lists the ones it takes (some refuse the parameter, some require it).
nlohmann::json insert_media_body(const MediaSlot& slot, const std::string& image_url);
// "https://host/api/v1/boot-images/ID/content": the URL without its query, where a signature is.
std::string url_without_query(const std::string& url);

boost::asio::awaitable<ActionReport> insert_virtual_media(RedfishConnection& connection,
                                                          std::string system_id,
                                                          std::string image_url);
boost::asio::awaitable<ActionReport> eject_virtual_media(RedfishConnection& connection,
                                                         std::string system_id);

}  // namespace ironhold::bmc::redfish

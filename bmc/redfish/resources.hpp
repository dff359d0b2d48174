#pragma once
// Reading Redfish resources the way a client should: from the service root by links, never by a
// fixed path, with the resource's ETag kept for a conditional change.
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

#include "bmc/redfish/redfish_transport.hpp"

namespace ironhold::bmc::redfish {

struct Resource {
  std::string path;
  nlohmann::json doc;
  std::optional<std::string> etag;
};
using Found = std::variant<Resource, DriverError>;

// The path of a {"@odata.id": ...} link object; empty for anything else.
std::string link_path(const nlohmann::json& link);
// The path `doc[property]` links to; empty when there is no such link.
std::string link(const nlohmann::json& doc, const std::string& property);

// GET `path`, which must answer a JSON object.
boost::asio::awaitable<Found> get_resource(RedfishConnection& connection, std::string path);
// A member of the collection the service root links as `collection` ("Systems", "Managers"):
// the one whose Id (or last path segment) is `id`, or the first when `id` is empty.
boost::asio::awaitable<Found> find_member(RedfishConnection& connection, std::string collection,
                                          std::string id);

}  // namespace ironhold::bmc::redfish

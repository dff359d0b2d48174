// Reading Redfish resources by link, shared by the actions and the firmware update.
#include "bmc/redfish/resources.hpp"

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;
using nlohmann::json;

// The path of a {"@odata.id": ...} link object; empty for anything else.
std::string link_path(const json& link) {
  if (!link.is_object()) return {};
  const auto id = link.find("@odata.id");
  return id != link.end() && id->is_string() ? path_of(id->get_ref<const std::string&>()) : "";
}

std::string link(const json& doc, const std::string& property) {
  if (!doc.is_object()) return {};
  const auto it = doc.find(property);
  return it == doc.end() ? std::string() : link_path(*it);
}

namespace {

std::string final_segment(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

}  // namespace

asio::awaitable<Found> get_resource(RedfishConnection& connection, std::string path) {
  std::string method = "GET";
  const std::string wanted = path;
  std::optional<json> no_body;
  http::HeaderList no_headers;
  CallResult result = co_await connection.call(std::move(method), std::move(path),
                                               std::move(no_body), std::move(no_headers));
  if (auto* e = std::get_if<DriverError>(&result)) co_return std::move(*e);
  RedfishReply& reply = std::get<RedfishReply>(result);
  if (!reply.body.is_object())
    co_return DriverError{DriverErrorCode::bad_response, "GET " + wanted + ": not a JSON object"};
  co_return Resource{wanted, std::move(reply.body), std::move(reply.etag)};
}

// A member of the collection the service root links as `collection` ("Systems", "Managers"):
// the one whose Id (or last path segment) is `id`, or the first when `id` is empty.
asio::awaitable<Found> find_member(RedfishConnection& connection, std::string collection,
                                   std::string id) {
  std::string root_path = "/redfish/v1/";
  Found root = co_await get_resource(connection, std::move(root_path));
  if (auto* e = std::get_if<DriverError>(&root)) co_return std::move(*e);
  std::string collection_path = link(std::get<Resource>(root).doc, collection);
  if (collection_path.empty())
    co_return DriverError{DriverErrorCode::unsupported, "the service has no " + collection};
  Found listing = co_await get_resource(connection, std::move(collection_path));
  if (auto* e = std::get_if<DriverError>(&listing)) co_return std::move(*e);
  std::vector<std::string> members;
  const json& doc = std::get<Resource>(listing).doc;
  if (const auto it = doc.find("Members"); it != doc.end() && it->is_array())
    for (const auto& member : *it) {
      const std::string path = link_path(member);
      if (!path.empty()) members.push_back(path);
    }
  if (members.empty())
    co_return DriverError{DriverErrorCode::bad_response,
                          "the " + collection + " collection is empty"};
  // The Id is usually the last segment; otherwise read the members until one says so.
  std::string chosen;
  for (const auto& path : members)
    if (id.empty() || final_segment(path) == id) {
      chosen = path;
      break;
    }
  if (!chosen.empty()) {
    Found found = co_await get_resource(connection, std::move(chosen));
    co_return found;
  }
  for (const auto& path : members) {
    std::string candidate = path;
    Found found = co_await get_resource(connection, std::move(candidate));
    if (auto* r = std::get_if<Resource>(&found); r && r->doc.value("Id", std::string()) == id)
      co_return found;
  }
  co_return DriverError{DriverErrorCode::bad_response, "no " + collection + " member " + id};
}

}  // namespace ironhold::bmc::redfish

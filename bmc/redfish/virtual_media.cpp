#include "bmc/redfish/virtual_media.hpp"

#include <algorithm>

#include "bmc/redfish/actions.hpp"
#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/resources.hpp"

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

std::string action_target(const json& doc, const std::string& name) {
  const json* actions = read_object(&doc, "Actions");
  const json* action = actions ? read_object(actions, name) : nullptr;
  const auto target = action ? read_string(action, "target") : std::nullopt;
  return target ? path_of(*target) : std::string();
}

using SlotOrError = std::variant<MediaSlot, DriverError>;

// The CD slot of the System's virtual media: the System's own collection, else its Manager's.
asio::awaitable<SlotOrError> find_cd_slot(RedfishConnection& connection, std::string system_id) {
  std::string systems = "Systems";
  Found system = co_await find_member(connection, std::move(systems), std::move(system_id));
  if (auto* e = std::get_if<DriverError>(&system)) co_return std::move(*e);
  const json& system_doc = std::get<Resource>(system).doc;
  std::vector<std::string> collections;
  if (const json* link = property(system_doc, "VirtualMedia")) {
    const std::string path = id_of(*link);
    if (!path.empty()) collections.push_back(path);
  }
  const auto managers = read_links(read_object(&system_doc, "Links"), "ManagedBy");
  for (const auto& manager_path : managers) {
    std::string wanted = manager_path;
    Found manager = co_await get_resource(connection, std::move(wanted));
    if (auto* m = std::get_if<Resource>(&manager))
      if (const json* link = property(m->doc, "VirtualMedia")) {
        const std::string path = id_of(*link);
        if (!path.empty()) collections.push_back(path);
      }
  }
  for (const auto& collection_path : collections) {
    std::string wanted = collection_path;
    Found listing = co_await get_resource(connection, std::move(wanted));
    auto* collection = std::get_if<Resource>(&listing);
    if (!collection) continue;
    for (const auto& member : read_links(&collection->doc, "Members")) {
      std::string member_path = member;
      Found media = co_await get_resource(connection, std::move(member_path));
      auto* doc = std::get_if<Resource>(&media);
      if (!doc) continue;
      if (auto slot = cd_slot(doc->doc)) {
        slot->path = doc->path;
        co_return std::move(*slot);
      }
    }
  }
  co_return DriverError{DriverErrorCode::unsupported,
                        collections.empty()
                            ? "the BMC offers no VirtualMedia (neither the System nor its Manager "
                              "links one)"
                            : "the BMC's VirtualMedia has no CD or DVD slot"};
}

asio::awaitable<std::optional<DriverError>> eject(RedfishConnection& connection,
                                                  const MediaSlot& slot) {
  if (!slot.eject_target.empty()) {
    auto sending = send_request(connection, "POST", slot.eject_target, json::object());
    co_return co_await std::move(sending);
  }
  auto sending =
      send_request(connection, "PATCH", slot.path, {{"Image", nullptr}, {"Inserted", false}});
  co_return co_await std::move(sending);
}

}  // namespace

std::optional<MediaSlot> cd_slot(const json& media) {
  const json* types = read_array(&media, "MediaTypes");
  if (!types) return std::nullopt;
  const bool cd = std::any_of(types->begin(), types->end(),
                              [](const json& t) { return t == "CD" || t == "DVD"; });
  if (!cd) return std::nullopt;
  MediaSlot slot;
  slot.inserted = read_bool(&media, "Inserted").value_or(false);
  slot.image = read_string(&media, "Image").value_or("");
  slot.insert_target = action_target(media, "#VirtualMedia.InsertMedia");
  slot.eject_target = action_target(media, "#VirtualMedia.EjectMedia");
  if (const json* actions = read_object(&media, "Actions"))
    if (const json* insert = read_object(actions, "#VirtualMedia.InsertMedia"))
      slot.transfer_protocols = allowable_values(*insert, "TransferProtocolType");
  return slot;
}

json insert_media_body(const MediaSlot& slot, const std::string& image_url) {
  json body = {{"Image", image_url}, {"Inserted", true}, {"WriteProtected", true}};
  if (slot.transfer_protocols) {
    const std::string scheme = image_url.rfind("https://", 0) == 0 ? "HTTPS" : "HTTP";
    const auto& listed = *slot.transfer_protocols;
    if (std::find(listed.begin(), listed.end(), scheme) != listed.end())
      body["TransferProtocolType"] = scheme;
  }
  return body;
}

std::string url_without_query(const std::string& url) {
  return url.substr(0, url.find('?'));
}

asio::awaitable<ActionReport> insert_virtual_media(RedfishConnection& connection,
                                                   std::string system_id, std::string image_url) {
  auto finding = find_cd_slot(connection, system_id);
  SlotOrError found = co_await std::move(finding);
  if (auto* e = std::get_if<DriverError>(&found))
    co_return action_report(connection, "", std::move(*e));
  const MediaSlot slot = std::get<MediaSlot>(found);
  const std::string shown = url_without_query(image_url);
  if (slot.inserted && slot.image == image_url)
    co_return action_report(connection, "already mounted in " + slot.path + ": " + shown);
  std::string detail;
  if (slot.inserted) {
    // Another image (a previous install's, an operator's): out first, or the BMC refuses.
    auto ejecting = eject(connection, slot);
    if (auto failed = co_await std::move(ejecting))
      co_return action_report(
          connection, "",
          DriverError{failed->code, "could not eject " + url_without_query(slot.image) +
                                        " first: " + failed->message});
    detail = "ejected " + url_without_query(slot.image) + "; ";
  }
  std::optional<DriverError> failed;
  if (!slot.insert_target.empty()) {
    auto inserting =
        send_request(connection, "POST", slot.insert_target, insert_media_body(slot, image_url));
    failed = co_await std::move(inserting);
    detail += "InsertMedia " + shown + " in " + slot.path;
  } else {
    auto patching =
        send_request(connection, "PATCH", slot.path, {{"Image", image_url}, {"Inserted", true}});
    failed = co_await std::move(patching);
    detail += "PATCH Image " + shown + " in " + slot.path;
  }
  if (failed) {
    failed->message = "the BMC refused to mount " + shown + ": " + failed->message;
    co_return action_report(connection, "", std::move(failed));
  }
  // What the BMC says is mounted now: a BMC that accepted but could not fetch says Inserted false.
  std::string path = slot.path;
  Found after = co_await get_resource(connection, std::move(path));
  if (auto* e = std::get_if<DriverError>(&after))
    co_return action_report(connection, "", std::move(*e));
  const auto mounted = cd_slot(std::get<Resource>(after).doc);
  if (!mounted || !mounted->inserted || url_without_query(mounted->image) != shown)
    co_return action_report(
        connection, "",
        DriverError{DriverErrorCode::rejected,
                    "the BMC accepted the image but does not show it mounted "
                    "(Inserted " +
                        std::string(mounted && mounted->inserted ? "true" : "false") + ", Image " +
                        (mounted && !mounted->image.empty() ? url_without_query(mounted->image)
                                                            : std::string("none")) +
                        ")"});
  co_return action_report(connection, detail);
}

asio::awaitable<ActionReport> eject_virtual_media(RedfishConnection& connection,
                                                  std::string system_id) {
  auto finding = find_cd_slot(connection, system_id);
  SlotOrError found = co_await std::move(finding);
  if (auto* e = std::get_if<DriverError>(&found))
    co_return action_report(connection, "", std::move(*e));
  const MediaSlot slot = std::get<MediaSlot>(found);
  if (!slot.inserted) co_return action_report(connection, "nothing mounted in " + slot.path);
  auto ejecting = eject(connection, slot);
  if (auto failed = co_await std::move(ejecting))
    co_return action_report(connection, "", std::move(failed));
  co_return action_report(connection,
                          "ejected " + url_without_query(slot.image) + " from " + slot.path);
}

}  // namespace ironhold::bmc::redfish

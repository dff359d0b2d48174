// BmcState's virtual media: a CD slot on the Manager that manages the first System (made when the
// mockup has none), VirtualMedia.InsertMedia / EjectMedia and the PATCH of Image and Inserted that
// older services take instead. A restart with a one-time or continuous boot from Cd and an image
// mounted hands the boot to the fleet's Installer, which reads the image and plays its installer.
#include <algorithm>

#include "sim/redfish/bmc_state.hpp"
#include "sim/redfish/errors.hpp"
#include "sim/redfish/mockup.hpp"

namespace ironhold::sim::redfish {

using nlohmann::json;

namespace {

constexpr const char* insert_action = "#VirtualMedia.InsertMedia";
constexpr const char* eject_action = "#VirtualMedia.EjectMedia";

bool http_url(const std::string& url) {
  return url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
}

}  // namespace

void BmcState::find_virtual_media() {
  // A CD slot of the mockup's own, if it has one.
  for (const auto& [path, doc] : documents_) {
    if (!doc.is_json || doc.json.value("@odata.type", "").rfind("#VirtualMedia.", 0) != 0) continue;
    const json types = doc.json.value("MediaTypes", json::array());
    if (std::find(types.begin(), types.end(), json("CD")) == types.end() &&
        std::find(types.begin(), types.end(), json("DVD")) == types.end())
      continue;
    media_path_ = path;
    break;
  }
  if (media_path_.empty() && !console_manager_.empty()) {
    const std::string collection = console_manager_ + "/VirtualMedia";
    media_path_ = collection + "/CD1";
    Document listing;
    listing.is_json = true;
    listing.json = {{"@odata.id", collection},
                    {"@odata.type", "#VirtualMediaCollection.VirtualMediaCollection"},
                    {"Name", "Virtual Media Services"},
                    {"Members", json::array({{{"@odata.id", media_path_}}})},
                    {"Members@odata.count", 1}};
    documents_[collection] = std::move(listing);
    Document cd;
    cd.is_json = true;
    cd.json = {
        {"@odata.id", media_path_},
        {"@odata.type", "#VirtualMedia.v1_6_0.VirtualMedia"},
        {"Id", "CD1"},
        {"Name", "Virtual CD"},
        {"MediaTypes", json::array({"CD", "DVD"})},
        {"Image", nullptr},
        {"ImageName", nullptr},
        {"Inserted", false},
        {"WriteProtected", true},
        {"ConnectedVia", "NotConnected"},
        {"TransferProtocolType", nullptr},
        {"Actions",
         {{insert_action,
           {{"target", media_path_ + "/Actions/VirtualMedia.InsertMedia"},
            {"TransferProtocolType@Redfish.AllowableValues", json::array({"HTTP", "HTTPS"})}}},
          {eject_action, {{"target", media_path_ + "/Actions/VirtualMedia.EjectMedia"}}}}}};
    documents_[media_path_] = std::move(cd);
    documents_.at(console_manager_).json["VirtualMedia"] = {{"@odata.id", collection}};
  }
  if (media_path_.empty()) return;
  const json& actions = documents_.at(media_path_).json.value("Actions", json::object());
  if (actions.contains(insert_action))
    media_insert_target_ = resource_path(actions[insert_action].value("target", std::string()));
  if (actions.contains(eject_action))
    media_eject_target_ = resource_path(actions[eject_action].value("target", std::string()));
}

std::optional<Response> BmcState::media_post(const std::string& path, const Request& request) {
  if (media_path_.empty()) return std::nullopt;
  json& cd = documents_.at(media_path_).json;
  if (!media_insert_target_.empty() && path == media_insert_target_) {
    const json body = json::parse(request.body(), nullptr, false);
    if (body.is_discarded() || !body.is_object()) return malformed_json();
    const std::string action = "VirtualMedia.InsertMedia";
    for (const auto& [key, value] : body.items())
      if (key != "Image" && key != "Inserted" && key != "WriteProtected" &&
          key != "TransferProtocolType" && key != "UserName" && key != "Password")
        return action_parameter_unknown(action, key);
    const auto image = body.find("Image");
    if (image == body.end()) return action_parameter_missing(action, "Image");
    if (!image->is_string())
      return action_parameter_value_type_error(image->dump(), "Image", action);
    if (!http_url(image->get<std::string>()))
      return action_parameter_value_format_error(image->get<std::string>(), "Image", action);
    if (const auto protocol = body.find("TransferProtocolType"); protocol != body.end())
      if (*protocol != "HTTP" && *protocol != "HTTPS")
        return action_parameter_value_not_in_list(protocol->dump(), "TransferProtocolType", action);
    // As iDRAC and iLO do: one image at a time, ejected first.
    if (cd.value("Inserted", false))
      return redfish_error(
          http::status::bad_request, "Base.1.8.ResourceInUse",
          "The virtual CD holds " + cd.value("Image", std::string()) + ": eject it first");
    mount(image->get<std::string>(), body.value("WriteProtected", true));
    return no_content();
  }
  if (!media_eject_target_.empty() && path == media_eject_target_) {
    unmount();
    return no_content();
  }
  return std::nullopt;
}

std::optional<Response> BmcState::media_patch(const std::string& path, const json& body) {
  if (path != media_path_) return std::nullopt;
  for (const auto& [key, value] : body.items())
    if (key != "Image" && key != "Inserted" && key != "WriteProtected")
      return property_not_writable(key);
  const auto image = body.find("Image");
  const bool inserted = body.value("Inserted", image != body.end() && !image->is_null());
  if (!inserted || (image != body.end() && image->is_null())) {
    unmount();
    return no_content();
  }
  if (image == body.end() || !image->is_string() || !http_url(image->get<std::string>()))
    return property_value_format_error(image == body.end() ? "null" : image->dump(), "Image");
  mount(image->get<std::string>(), body.value("WriteProtected", true));
  return no_content();
}

void BmcState::mount(const std::string& image, bool write_protected) {
  json& cd = documents_.at(media_path_).json;
  cd["Image"] = image;
  const std::string bare = image.substr(0, image.find('?'));
  cd["ImageName"] = bare.substr(bare.find_last_of('/') + 1);
  cd["Inserted"] = true;
  cd["WriteProtected"] = write_protected;
  cd["ConnectedVia"] = "URI";
  cd["TransferProtocolType"] = image.rfind("https://", 0) == 0 ? "HTTPS" : "HTTP";
  ++counters_.media_inserts;
  changed();
}

void BmcState::unmount() {
  json& cd = documents_.at(media_path_).json;
  if (!cd.value("Inserted", false)) return;
  cd["Image"] = nullptr;
  cd["ImageName"] = nullptr;
  cd["Inserted"] = false;
  cd["ConnectedVia"] = "NotConnected";
  cd["TransferProtocolType"] = nullptr;
  ++counters_.media_ejects;
  changed();
}

std::string BmcState::mounted_image() const {
  if (media_path_.empty()) return {};
  const json& cd = documents_.at(media_path_).json;
  if (!cd.value("Inserted", false) || !cd.contains("Image") || !cd["Image"].is_string()) return {};
  return cd["Image"].get<std::string>();
}

json BmcState::virtual_media() const {
  std::lock_guard lock(mutex_);
  if (media_path_.empty()) return nullptr;
  const std::string image = mounted_image();
  return {{"path", media_path_},
          {"inserted", !image.empty()},
          {"image", image.empty() ? json(nullptr) : json(image)}};
}

}  // namespace ironhold::sim::redfish

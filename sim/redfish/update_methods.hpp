#pragma once
// Which firmware update methods a simulated BMC's UpdateService offers (`--update-methods`):
// UpdateService.SimpleUpdate (the BMC downloads the image from a URL it is given) and
// MultipartHttpPushUri (the client pushes the image in a multipart/form-data POST), as BMCs offer
// one, the other or both. Without a choice a BMC offers what its mockup declares.
#include <nlohmann/json.hpp>
#include <string_view>

namespace ironhold::sim::redfish {

struct UpdateMethods {
  bool simple = false;
  bool multipart = false;
};

// Where MultipartHttpPushUri points when the mockup declares none (bmcweb's path).
inline constexpr const char* default_push_uri = "/redfish/v1/UpdateService/upload";

// A comma list of "simple" and "multipart" ("multipart", "simple,multipart"). Throws
// ironhold::Error (invalid, field "update-methods") naming every word it does not know, or when
// the list names no method.
UpdateMethods parse_update_methods(std::string_view list);

// Makes an UpdateService document offer exactly `methods`: with multipart it has a
// MultipartHttpPushUri (the mockup's own, else default_push_uri), without it none; without simple
// its #UpdateService.SimpleUpdate action goes (and Actions with it, once empty). Adding
// SimpleUpdate to a mockup that has no such action is beyond it: the action stays absent.
void offer_update_methods(nlohmann::json& update_service, const UpdateMethods& methods);

}  // namespace ironhold::sim::redfish

#include "sim/redfish/update_methods.hpp"

#include <string>

#include "inventory/error.hpp"

namespace ironhold::sim::redfish {

UpdateMethods parse_update_methods(std::string_view list) {
  UpdateMethods methods;
  std::string unknown;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view word = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    while (!word.empty() && word.front() == ' ') word.remove_prefix(1);
    while (!word.empty() && word.back() == ' ') word.remove_suffix(1);
    if (word == "simple")
      methods.simple = true;
    else if (word == "multipart")
      methods.multipart = true;
    else if (!word.empty())
      unknown += (unknown.empty() ? "\"" : ", \"") + std::string(word) + "\"";
  }
  if (!unknown.empty())
    throw invalid("unknown update method " + unknown + " (known: simple, multipart)",
                  "update-methods");
  if (!methods.simple && !methods.multipart)
    throw invalid("name at least one update method: simple, multipart", "update-methods");
  return methods;
}

void offer_update_methods(nlohmann::json& update_service, const UpdateMethods& methods) {
  if (!update_service.is_object()) return;
  if (!methods.multipart)
    update_service.erase("MultipartHttpPushUri");
  else if (!update_service.value("MultipartHttpPushUri", nlohmann::json()).is_string())
    update_service["MultipartHttpPushUri"] = default_push_uri;
  const auto actions = update_service.find("Actions");
  if (methods.simple || actions == update_service.end() || !actions->is_object()) return;
  actions->erase("#UpdateService.SimpleUpdate");
  if (actions->empty()) update_service.erase(actions);
}

}  // namespace ironhold::sim::redfish

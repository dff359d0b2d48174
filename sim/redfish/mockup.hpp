#pragma once
// A DMTF Redfish mockup tree (DSP2043 "short form" layout) loaded into memory: one document per URL
// path. See shared/redfish-mockups/README.md for the URL -> file rules this follows.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ironhold::sim::redfish {

struct Document {
  bool is_json = true;
  nlohmann::json json;       // when is_json
  std::string text;          // otherwise (CSDL XML): served as it is
  std::string content_type;  // "application/json", "application/xml"
};

// The URL path a request target names, as a key of Mockup::documents(): query and fragment dropped,
// trailing '/' stripped ("/redfish/v1/" -> "/redfish/v1"). Empty if it is not under /redfish/v1.
std::string resource_path(std::string_view target);
// The resource_path of the link `object` holds as `name` ({"@odata.id": ...}); empty when there
// is none.
std::string link_path(const nlohmann::json& object, std::string_view name);

class Mockup {
 public:
  // Reads every file of the tree; a file that is not valid JSON (or unreadable) is an
  // ironhold::Error (invalid) naming it, as is a directory with no service root.
  static Mockup load(const std::filesystem::path& dir);

  // "/redfish/v1", "/redfish/v1/Systems", "/redfish/v1/$metadata", ...
  const std::map<std::string, Document>& documents() const { return documents_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::map<std::string, Document> documents_;
};

}  // namespace ironhold::sim::redfish

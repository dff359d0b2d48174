#pragma once
// The Redfish documents read from one service, by @odata.id: what the crawler fills and the
// normalizer reads. Keys are canonical paths ("/redfish/v1/Systems/1": no query, fragment or
// trailing slash), so a resource reachable by two links is one entry.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::bmc::redfish {

// "/redfish/v1/Systems/1/" -> "/redfish/v1/Systems/1"; query and fragment dropped; an absolute
// URL's scheme and authority dropped. Empty when it is not a path under /redfish/v1.
std::string canonical_path(std::string_view link);

class ResourceGraph {
 public:
  void add(const std::string& path, nlohmann::json document);
  // Null when the path was not read (or failed).
  const nlohmann::json* find(std::string_view path) const;
  const std::map<std::string, nlohmann::json, std::less<>>& documents() const { return documents_; }
  std::size_t size() const { return documents_.size(); }

  // The canonical paths of a collection's members, in order, de-duplicated; every page read
  // (nextLink) contributes. Empty for anything that is not a collection that was read.
  std::vector<std::string> members(std::string_view collection_path) const;
  void set_members(const std::string& collection_path, std::vector<std::string> members);

 private:
  std::map<std::string, nlohmann::json, std::less<>> documents_;
  std::map<std::string, std::vector<std::string>, std::less<>> members_;
};

// The canonical target of a property that is a link ({"@odata.id": ...}); empty otherwise.
std::string link_of(const nlohmann::json& document, std::string_view property);

}  // namespace ironhold::bmc::redfish

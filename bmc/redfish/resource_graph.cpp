#include "bmc/redfish/resource_graph.hpp"

#include "bmc/redfish/json_read.hpp"

namespace ironhold::bmc::redfish {

namespace {

constexpr std::string_view service_root = "/redfish/v1";

// "https://bmc:443/redfish/v1/x" -> "/redfish/v1/x": links may be absolute URLs of the same
// service; the crawler only ever talks to the endpoint it was given.
std::string_view drop_scheme_and_authority(std::string_view link) {
  auto scheme_end = link.find("://");
  if (scheme_end == std::string_view::npos || link.substr(0, scheme_end).find('/') != link.npos)
    return link;
  auto path_start = link.find('/', scheme_end + 3);
  return path_start == std::string_view::npos ? std::string_view{} : link.substr(path_start);
}

}  // namespace

std::string canonical_path(std::string_view link) {
  link = drop_scheme_and_authority(link);
  // A fragment points inside a document ("Thermal#/Fans/0"); a query selects a page or view.
  link = link.substr(0, link.find_first_of("?#"));
  std::string path;
  path.reserve(link.size());
  std::size_t start = 0;
  while (start <= link.size()) {
    auto end = link.find('/', start);
    if (end == std::string_view::npos) end = link.size();
    std::string_view segment = link.substr(start, end - start);
    start = end + 1;
    if (segment.empty()) continue;  // leading, doubled and trailing slashes
    // Dot segments would let a document point a reader outside the service's tree.
    if (segment == "." || segment == "..") return {};
    path += '/';
    path += segment;
  }
  if (path != service_root && !path.starts_with(std::string(service_root) + "/")) return {};
  return path;
}

void ResourceGraph::add(const std::string& path, nlohmann::json document) {
  documents_.insert_or_assign(path, std::move(document));
}

const nlohmann::json* ResourceGraph::find(std::string_view path) const {
  auto it = documents_.find(path);
  return it == documents_.end() ? nullptr : &it->second;
}

std::vector<std::string> ResourceGraph::members(std::string_view collection_path) const {
  auto it = members_.find(collection_path);
  if (it != members_.end()) return it->second;
  // A graph built by hand (tests, the fuzz target) may hold only the collection's document.
  const nlohmann::json* document = find(collection_path);
  return document ? read_links(document, "Members") : std::vector<std::string>{};
}

void ResourceGraph::set_members(const std::string& collection_path,
                                std::vector<std::string> members) {
  members_.insert_or_assign(collection_path, std::move(members));
}

std::string link_of(const nlohmann::json& document, std::string_view property_name) {
  const nlohmann::json* link = property(document, property_name);
  return link ? id_of(*link) : std::string{};
}

}  // namespace ironhold::bmc::redfish

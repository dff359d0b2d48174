#include "bmc/redfish/normalize_links.hpp"

#include <algorithm>

#include "bmc/redfish/json_read.hpp"

namespace ironhold::bmc::redfish {

namespace {

void add_unique(std::vector<std::string>& paths, const std::string& path) {
  if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
}

}  // namespace

std::string root_link(const ResourceGraph& graph, std::string_view property_name) {
  const nlohmann::json* root = graph.find(service_root_path);
  return root ? link_of(*root, property_name) : std::string{};
}

std::vector<std::string> chassis_of(const ResourceGraph& graph, const std::string& system_path) {
  std::vector<std::string> chassis;
  const nlohmann::json* system = graph.find(system_path);
  if (!system) return chassis;
  for (const auto& path : read_links(read_object(system, "Links"), "Chassis"))
    if (graph.find(path)) add_unique(chassis, path);
  std::string collection = root_link(graph, "Chassis");
  if (collection.empty()) return chassis;
  for (const auto& path : graph.members(collection)) {
    const nlohmann::json* document = graph.find(path);
    if (!document) continue;
    auto systems = read_links(read_object(document, "Links"), "ComputerSystems");
    if (std::find(systems.begin(), systems.end(), system_path) != systems.end())
      add_unique(chassis, path);
  }
  return chassis;
}

std::vector<std::string> managers_of(const ResourceGraph& graph, const std::string& system_path) {
  std::vector<std::string> managers;
  const nlohmann::json* system = graph.find(system_path);
  if (!system) return managers;
  auto linked = read_links(read_object(system, "Links"), "ManagedBy");
  if (linked.empty()) {
    std::string collection = root_link(graph, "Managers");
    if (!collection.empty()) linked = graph.members(collection);
  }
  for (const auto& path : linked)
    if (graph.find(path)) add_unique(managers, path);
  return managers;
}

}  // namespace ironhold::bmc::redfish

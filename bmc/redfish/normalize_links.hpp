#pragma once
// Which resources belong to a System: the rules the crawler follows when it decides what to read
// and the normalizer follows when it decides what to count, kept in one place so both agree.
#include <string>
#include <vector>

#include "bmc/redfish/resource_graph.hpp"

namespace ironhold::bmc::redfish {

inline constexpr std::string_view service_root_path = "/redfish/v1";

// The System's chassis: its Links.Chassis, then every member of the service's Chassis collection
// whose Links.ComputerSystems names the System (some services only link one way). Chassis that
// only contain other chassis (Links.Contains) are not followed: their sensors are the enclosure's,
// not this System's. Only chassis whose documents are in the graph are returned.
std::vector<std::string> chassis_of(const ResourceGraph& graph, const std::string& system_path);

// The System's managers: Links.ManagedBy; when the System names none, every Manager of the
// service (a single-System service often omits the link).
std::vector<std::string> managers_of(const ResourceGraph& graph, const std::string& system_path);

// The service's collection linked from the root as `property` ("Chassis", "Managers"); empty
// when the root was not read or does not link it.
std::string root_link(const ResourceGraph& graph, std::string_view property);

}  // namespace ironhold::bmc::redfish

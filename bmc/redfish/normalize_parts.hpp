#pragma once
// The normalizer's pieces, one file each (normalize_*.cpp); normalizer.cpp puts them together.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bmc/redfish/resource_graph.hpp"
#include "inventory/model/hardware.hpp"

namespace ironhold::bmc::redfish {

struct ComponentsResult {
  std::vector<Component> components;
  HardwareSummary summary;
  // Resource path -> slot of the component read from it (for firmware RelatedItem links).
  std::map<std::string, std::string, std::less<>> slot_by_path;
  std::vector<ComponentKind> unlisted_kinds;  // see SystemInventory
};

// Processors, memory, drives and NICs of the System; PSUs and fans of its chassis; and the
// hardware summary (issue 3's definitions).
// GPUs (with their health details) of `baseboards` count as the System's.
ComponentsResult normalize_components(const ResourceGraph& graph, const std::string& system_path,
                                      const std::vector<std::string>& baseboards = {});

// Readings of the System's chassis, de-duplicated (see normalize_sensors.cpp for the rule).
std::vector<SensorReading> normalize_sensor_readings(const ResourceGraph& graph,
                                                     const std::string& system_path);

// What the System draws from the wall (see normalize_power.cpp); nullopt when its chassis do not
// say.
std::optional<InputPower> normalize_input_power(const ResourceGraph& graph,
                                                const std::string& system_path);

// Entries of the System's and its Managers' log services that are in the graph.
std::vector<HardwareEvent> normalize_events(const ResourceGraph& graph,
                                            const std::string& system_path);

// FirmwareInventory plus the Manager's firmware and the BIOS where no item covers them.
std::vector<FirmwareItem> normalize_firmware(const ResourceGraph& graph,
                                             const std::string& system_path,
                                             const ComponentsResult& components);

// "2012-03-07T14:44:00Z", "2021-03-13T04:14:13.5+06:00": RFC 3339 date-times only.
bool is_rfc3339(std::string_view text);

// The Id of a resource, else the last segment of its path.
std::string resource_id(const nlohmann::json& document, const std::string& path);

// Status.State is "Absent": the slot is empty.
bool is_absent(const nlohmann::json& document);

}  // namespace ironhold::bmc::redfish

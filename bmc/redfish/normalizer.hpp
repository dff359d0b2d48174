#pragma once
// Redfish documents -> the normalized model. Pure functions over a ResourceGraph: no I/O, never
// throw, tolerate anything (wrong types, missing properties, strings where numbers belong):
// what cannot be read is left unset. Unknown properties, Oem sections and annotations are
// ignored. The libFuzzer target fuzz/redfish_normalizer_fuzz.cpp drives these.
#include <string>
#include <vector>

#include "bmc/redfish/resource_graph.hpp"
#include "inventory/model/hardware.hpp"

namespace ironhold::bmc::redfish {

SystemStatus normalize_status(const ResourceGraph& graph, const std::string& system_path);

// Sensors from the System's chassis (Sensors, ThermalSubsystem/PowerSubsystem, and the older
// Thermal/Power, de-duplicated) and log entries from the System's and its Managers' LogServices.
// `baseboards`: GPU baseboard Systems whose GPUs, GPU chassis and logs belong to this one
// (crawler.hpp); their GPUs' health readings (normalize_gpu.hpp) come with them.
SystemSensors normalize_sensors(const ResourceGraph& graph, const std::string& system_path,
                                const std::vector<std::string>& baseboards = {});

// Everything about one System, with the hardware summary as issue 3 defines it.
SystemInventory normalize_inventory(const ResourceGraph& graph, const std::string& system_path,
                                    const std::vector<std::string>& baseboards = {});

// Redfish Status {State, Health, HealthRollup} -> Health (HealthRollup preferred; Absent or
// Disabled resources are unknown). Exposed for tests.
Health health_of(const nlohmann::json& status);

// Redfish PowerState -> canonical: On -> on, Off -> off, PoweringOn/PoweringOff/Paused ->
// transitioning, anything else -> unknown.
PowerState power_state_of(std::string_view redfish_value);

// The firmware version of the first Manager of the service, if any.
std::optional<std::string> manager_firmware(const ResourceGraph& graph);

}  // namespace ironhold::bmc::redfish

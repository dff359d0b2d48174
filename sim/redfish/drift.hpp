#pragma once
// Sensor readings that move: each read of a Sensor, Thermal or Power resource gives numbers a
// little off the mockup's, as a live BMC does, so pollers see changing values and history. The
// walk is deterministic (a BMC's seed, the resource, the read number), bounded around the mockup
// value and never crosses a threshold on its own; a BMC whose health was set to Warning/Critical
// runs its temperatures above the upper caution/critical threshold so a client sees why.
#include <cstdint>
#include <nlohmann/json.hpp>

namespace ironhold::sim::redfish {

enum class Heat { normal, warning, critical };

// Heat for a Redfish health value ("OK", "Warning", "Critical"); anything else is normal.
Heat heat_of(const std::string& health);

// True for the resources drift changes (#Sensor., #Thermal., #Power.).
bool drifts(const nlohmann::json& document);

// `base` as read number `tick` of a BMC with `seed` shows it.
nlohmann::json drifted(const nlohmann::json& base, std::uint64_t seed, std::uint64_t tick,
                       Heat heat);

}  // namespace ironhold::sim::redfish

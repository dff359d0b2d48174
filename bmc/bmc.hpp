#pragma once
// Drivers for owned servers. The Redfish and IPMI drivers land here (bmc/redfish/, bmc/ipmi/).
#include <span>
#include <string_view>

namespace ironhold::bmc {

// The BMC driver names a node may be enrolled with (besides "auto").
std::span<const std::string_view> driver_names();

}  // namespace ironhold::bmc

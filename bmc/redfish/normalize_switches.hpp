#pragma once
// The NVSwitches of an NVIDIA HGX baseboard: Switches of SwitchType NVLink in the service's
// Fabrics (/redfish/v1/Fabrics/HGX_NVLinkFabric_0/Switches/NVSwitch_n), each with SwitchMetrics
// (ECC counts of its internal memory, PCIe errors). A failing NVSwitch takes the NVLink bandwidth
// of every GPU on the tray with it, so they are components of the host and their counters
// readings an alert rule can watch. Layout and names: tests/data/vendor-captures/nvidia-hgx.
#include <string>
#include <vector>

#include "bmc/redfish/resource_graph.hpp"
#include "inventory/model/hardware.hpp"

namespace ironhold::bmc::redfish {

// The NVLink Switches of every Fabric the graph holds, in the collections' order.
std::vector<std::string> nvswitch_paths(const ResourceGraph& graph);

// One NVSwitch as a component: kind other, slot its Id, details {type: "nvswitch", uuid, ecc,
// pcie_errors, bandwidth_gbps}, each only where the service gave something.
Component nvswitch_component(const ResourceGraph& graph, const std::string& switch_path);

// Its counters as readings named "<Switch Id>_<what>": kinds nvswitch_ecc_uncorrectable,
// nvswitch_ecc_correctable (volatile counts where given, else aggregate) and
// nvswitch_pcie_fatal_errors.
std::vector<SensorReading> nvswitch_readings(const ResourceGraph& graph,
                                             const std::string& switch_path);

}  // namespace ironhold::bmc::redfish

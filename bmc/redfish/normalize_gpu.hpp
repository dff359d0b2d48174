#pragma once
// The health a GPU operator watches, read from what NVIDIA HGX services (and any BMC with
// ProcessorMetrics) publish for a GPU Processor: its PCIe link and errors, ECC counts of its SRAM
// and HBM (volatile: CurrentPeriod, aggregate: LifeTime), row remapping of its HBM, NVLink error
// counters summed over its ports, and why it is throttled. Layout and names: the NVIDIA captures
// in tests/data/vendor-captures/nvidia-hgx (FACTS.md).
#include <string>
#include <vector>

#include "bmc/redfish/resource_graph.hpp"
#include "inventory/model/hardware.hpp"

namespace ironhold::bmc::redfish {

// What the GPU and NVSwitch readers share. linked is the document `document` links as `property`
// (nothing when either is missing from the graph); add_ecc adds the four ECC counts of a
// MemoryMetrics-like object ({LifeTime, CurrentPeriod}) to `sums` as {correctable,
// uncorrectable}_{volatile,aggregate}; ecc_count picks a kind's volatile count where given, else
// its aggregate. pcie_error_counts reads a PCIeErrors object as {correctable, fatal, ...}.
const nlohmann::json* linked(const ResourceGraph& graph, const nlohmann::json* document,
                             std::string_view property);
void add_ecc(nlohmann::json& sums, const nlohmann::json* metrics);
std::optional<double> ecc_count(const nlohmann::json& counts, std::string_view kind);
nlohmann::json pcie_error_counts(const nlohmann::json* errors);
SensorReading counter_reading(const std::string& owner, const char* suffix, const char* kind,
                              double value, const char* unit);

// The GPU's details beyond the generic component ones: {uuid, pcie, pcie_errors, ecc, row_remap,
// nvlink, throttle_reasons}, each only where the service gave something.
nlohmann::json gpu_health_details(const ResourceGraph& graph, const std::string& processor_path);

// The same as readings an alert rule can watch, named "<GPU Id>_<what>": kinds
// gpu_ecc_uncorrectable, gpu_ecc_correctable (volatile counts where given, else aggregate),
// gpu_row_remap_failure (1 when the HBM could not remap a row), gpu_pcie_link_downgrade (1 when
// the link runs narrower or slower than it can), gpu_pcie_fatal_errors, gpu_nvlink_errors.
std::vector<SensorReading> gpu_health_readings(const ResourceGraph& graph,
                                               const std::string& processor_path);

}  // namespace ironhold::bmc::redfish

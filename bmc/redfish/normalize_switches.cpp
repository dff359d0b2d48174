#include "bmc/redfish/normalize_switches.hpp"

#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/normalize_gpu.hpp"
#include "bmc/redfish/normalize_links.hpp"
#include "bmc/redfish/normalize_parts.hpp"
#include "bmc/redfish/normalizer.hpp"

namespace ironhold::bmc::redfish {

using nlohmann::json;

namespace {

json ecc_of(const json* metrics) {
  json counts = json::object();
  add_ecc(counts, read_object(metrics, "InternalMemoryMetrics"));
  return counts;
}

}  // namespace

std::vector<std::string> nvswitch_paths(const ResourceGraph& graph) {
  std::vector<std::string> out;
  const std::string fabrics = root_link(graph, "Fabrics");
  if (fabrics.empty()) return out;
  for (const auto& fabric : graph.members(fabrics)) {
    const json* document = graph.find(fabric);
    const std::string switches = document ? link_of(*document, "Switches") : std::string{};
    if (switches.empty()) continue;
    for (const auto& path : graph.members(switches))
      if (read_string(graph.find(path), "SwitchType") == "NVLink") out.push_back(path);
  }
  return out;
}

Component nvswitch_component(const ResourceGraph& graph, const std::string& switch_path) {
  Component c;
  c.kind = ComponentKind::other;
  const json* document = graph.find(switch_path);
  if (!document) return c;
  c.slot = resource_id(*document, switch_path);
  c.name = read_string(document, "Name").value_or(c.slot);
  c.model = read_string(document, "Model");
  c.manufacturer = read_string(document, "Manufacturer");
  c.serial = read_string(document, "SerialNumber");
  c.part_number = read_string(document, "PartNumber");
  c.firmware_version = read_string(document, "FirmwareVersion");
  if (const json* status = read_object(document, "Status")) c.status = health_of(*status);
  c.details["type"] = "nvswitch";
  if (auto uuid = read_string(document, "UUID")) c.details["uuid"] = *uuid;
  if (auto bandwidth = read_number(document, "CurrentBandwidthGbps"))
    c.details["bandwidth_gbps"] = *bandwidth;
  const json* metrics = linked(graph, document, "Metrics");
  if (json ecc = ecc_of(metrics); !ecc.empty()) c.details["ecc"] = std::move(ecc);
  if (json errors = pcie_error_counts(read_object(metrics, "PCIeErrors")); !errors.empty())
    c.details["pcie_errors"] = std::move(errors);
  return c;
}

std::vector<SensorReading> nvswitch_readings(const ResourceGraph& graph,
                                             const std::string& switch_path) {
  std::vector<SensorReading> out;
  const json* document = graph.find(switch_path);
  if (!document) return out;
  const json* metrics = linked(graph, document, "Metrics");
  if (!metrics) return out;
  const std::string id = resource_id(*document, switch_path);
  const json counts = ecc_of(metrics);
  if (auto n = ecc_count(counts, "uncorrectable"))
    out.push_back(
        counter_reading(id, "ECC_Uncorrectable", "nvswitch_ecc_uncorrectable", *n, "count"));
  if (auto n = ecc_count(counts, "correctable"))
    out.push_back(counter_reading(id, "ECC_Correctable", "nvswitch_ecc_correctable", *n, "count"));
  const json errors = pcie_error_counts(read_object(metrics, "PCIeErrors"));
  if (errors.contains("fatal"))
    out.push_back(counter_reading(id, "PCIe_Fatal_Errors", "nvswitch_pcie_fatal_errors",
                                  errors["fatal"].get<double>(), "count"));
  return out;
}

}  // namespace ironhold::bmc::redfish

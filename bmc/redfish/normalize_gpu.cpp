#include "bmc/redfish/normalize_gpu.hpp"

#include <cctype>

#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/normalize_links.hpp"
#include "bmc/redfish/normalize_parts.hpp"

namespace ironhold::bmc::redfish {

namespace {

using nlohmann::json;

// "Gen5" -> 5; anything else -> 0.
int pcie_generation(const std::optional<std::string>& type) {
  if (!type || type->size() < 4 || type->compare(0, 3, "Gen") != 0) return 0;
  int n = 0;
  for (std::size_t i = 3; i < type->size() && std::isdigit(static_cast<unsigned char>((*type)[i]));
       ++i)
    n = n * 10 + ((*type)[i] - '0');
  return n;
}

}  // namespace

const json* linked(const ResourceGraph& graph, const json* document, std::string_view property) {
  if (!document) return nullptr;
  const std::string path = link_of(*document, property);
  return path.empty() ? nullptr : graph.find(path);
}

void add_ecc(json& sums, const json* metrics) {
  const std::pair<const char*, const char*> periods[] = {{"CurrentPeriod", "volatile"},
                                                         {"LifeTime", "aggregate"}};
  for (const auto& [period, word] : periods) {
    const json* counts = read_object(metrics, period);
    const std::pair<const char*, const char*> kinds[] = {
        {"CorrectableECCErrorCount", "correctable"},
        {"UncorrectableECCErrorCount", "uncorrectable"}};
    for (const auto& [property, kind] : kinds)
      if (auto n = read_number(counts, property)) {
        const std::string key = std::string(kind) + "_" + word;
        sums[key] = sums.value(key, 0.0) + *n;
      }
  }
}

json pcie_error_counts(const json* errors) {
  json out = json::object();
  const std::pair<const char*, const char*> names[] = {{"CorrectableErrorCount", "correctable"},
                                                       {"FatalErrorCount", "fatal"},
                                                       {"NonFatalErrorCount", "non_fatal"},
                                                       {"L0ToRecoveryCount", "l0_to_recovery"},
                                                       {"ReplayCount", "replay"},
                                                       {"ReplayRolloverCount", "replay_rollover"},
                                                       {"NAKReceivedCount", "nak_received"},
                                                       {"NAKSentCount", "nak_sent"}};
  for (const auto& [property, key] : names)
    if (auto v = read_number(errors, property)) out[key] = *v;
  return out;
}

std::optional<double> ecc_count(const json& counts, std::string_view kind) {
  const std::string v = std::string(kind) + "_volatile", a = std::string(kind) + "_aggregate";
  if (counts.contains(v)) return counts[v].get<double>();
  if (counts.contains(a)) return counts[a].get<double>();
  return std::nullopt;
}

SensorReading counter_reading(const std::string& owner, const char* suffix, const char* kind,
                              double value, const char* unit) {
  SensorReading r;
  r.name = owner + "_" + suffix;
  r.kind = kind;
  r.value = value;
  r.unit = unit;
  r.status = Health::unknown;
  return r;
}

namespace {

struct GpuDocuments {
  const json* processor = nullptr;
  const json* metrics = nullptr;         // ProcessorMetrics
  const json* memory_summary = nullptr;  // MemorySummary's MemoryMetrics (HBM + SRAM)
  std::vector<const json*> memory;       // the GPU's Memory (HBM) resources
  std::vector<const json*> memory_metrics;
  std::vector<const json*> port_metrics;  // its NVLink ports' metrics
  std::vector<const json*> ports;
};

GpuDocuments documents_of(const ResourceGraph& graph, const std::string& path) {
  GpuDocuments d;
  d.processor = graph.find(path);
  if (!d.processor) return d;
  d.metrics = linked(graph, d.processor, "Metrics");
  d.memory_summary = linked(graph, read_object(d.processor, "MemorySummary"), "Metrics");
  for (const auto& m : read_links(read_object(d.processor, "Links"), "Memory"))
    if (const json* memory = graph.find(m)) {
      d.memory.push_back(memory);
      if (const json* metrics = linked(graph, memory, "Metrics"))
        d.memory_metrics.push_back(metrics);
    }
  const std::string ports = link_of(*d.processor, "Ports");
  for (const auto& p : ports.empty() ? std::vector<std::string>{} : graph.members(ports))
    if (const json* port = graph.find(p)) {
      d.ports.push_back(port);
      if (const json* metrics = linked(graph, port, "Metrics")) d.port_metrics.push_back(metrics);
    }
  return d;
}

json pcie_link(const GpuDocuments& d) {
  const json* pcie = read_object(read_object(d.processor, "SystemInterface"), "PCIe");
  json out = json::object();
  if (!pcie) return out;
  if (auto v = read_number(pcie, "LanesInUse")) out["lanes"] = *v;
  if (auto v = read_number(pcie, "MaxLanes")) out["max_lanes"] = *v;
  if (auto v = read_string(pcie, "PCIeType")) out["generation"] = *v;
  if (auto v = read_string(pcie, "MaxPCIeType")) out["max_generation"] = *v;
  return out;
}

json pcie_errors(const GpuDocuments& d) {
  return pcie_error_counts(read_object(d.metrics, "PCIeErrors"));
}

// The GPU's ECC counts: MemorySummary's metrics where given (NVIDIA adds HBM and SRAM there),
// else the HBM's metrics and the SRAM's (ProcessorMetrics.CacheMetricsTotal) added up.
json ecc(const GpuDocuments& d) {
  json out = json::object();
  add_ecc(out, d.memory_summary);
  if (!out.empty()) return out;
  for (const json* m : d.memory_metrics) add_ecc(out, m);
  add_ecc(out, read_object(d.metrics, "CacheMetricsTotal"));
  return out;
}

json row_remap(const GpuDocuments& d) {
  json out = json::object();
  for (const json* memory : d.memory) {
    const json* nvidia = read_object(read_object(memory, "Oem"), "Nvidia");
    if (auto failed = read_bool(nvidia, "RowRemappingFailed"))
      out["failed"] = out.value("failed", false) || *failed;
    if (auto pending = read_bool(nvidia, "RowRemappingPending"))
      out["pending"] = out.value("pending", false) || *pending;
  }
  for (const json* metrics : d.memory_metrics) {
    const json* remapping =
        read_object(read_object(read_object(metrics, "Oem"), "Nvidia"), "RowRemapping");
    const std::pair<const char*, const char*> names[] = {
        {"CorrectableRowRemappingCount", "correctable"},
        {"UncorrectableRowRemappingCount", "uncorrectable"}};
    for (const auto& [property, key] : names)
      if (auto v = read_number(remapping, property)) out[key] = out.value(key, 0.0) + *v;
  }
  return out;
}

json nvlink(const GpuDocuments& d) {
  json out = json::object();
  if (d.ports.empty()) return out;
  int up = 0;
  for (const json* port : d.ports) up += read_string(port, "LinkStatus") == "LinkUp";
  out["ports"] = d.ports.size();
  out["ports_up"] = up;
  json errors = json::object();
  const std::pair<const char*, const char*> names[] = {{"DataCRCCount", "data_crc"},
                                                       {"FlitCRCCount", "flit_crc"},
                                                       {"RecoveryCount", "recovery"},
                                                       {"ReplayCount", "replay"}};
  for (const json* metrics : d.port_metrics) {
    const json* counters =
        read_object(read_object(read_object(metrics, "Oem"), "Nvidia"), "NVLinkErrors");
    for (const auto& [property, key] : names)
      if (auto v = read_number(counters, property)) errors[key] = errors.value(key, 0.0) + *v;
    for (const char* flag : {"RuntimeError", "TrainingError"})
      if (read_bool(counters, flag).value_or(false))
        errors[flag == std::string("RuntimeError") ? "runtime_error" : "training_error"] = true;
  }
  if (!errors.empty()) out["errors"] = std::move(errors);
  return out;
}

json throttle_reasons(const GpuDocuments& d) {
  const json* reasons =
      read_array(read_object(read_object(d.metrics, "Oem"), "Nvidia"), "ThrottleReasons");
  json out = json::array();
  if (!reasons) return out;
  for (const auto& r : *reasons)
    if (r.is_string() && r.get<std::string>() != "NA") out.push_back(r);
  return out;
}

SensorReading reading(const std::string& gpu, const char* suffix, const char* kind, double value,
                      const char* unit) {
  return counter_reading(gpu, suffix, kind, value, unit);
}

}  // namespace

json gpu_health_details(const ResourceGraph& graph, const std::string& processor_path) {
  const GpuDocuments d = documents_of(graph, processor_path);
  json out = json::object();
  if (!d.processor) return out;
  if (auto uuid = read_string(d.processor, "UUID")) out["uuid"] = *uuid;
  const std::pair<const char*, json> parts[] = {{"pcie", pcie_link(d)},
                                                {"pcie_errors", pcie_errors(d)},
                                                {"ecc", ecc(d)},
                                                {"row_remap", row_remap(d)},
                                                {"nvlink", nvlink(d)}};
  for (const auto& [key, value] : parts)
    if (!value.empty()) out[key] = value;
  if (d.metrics) out["throttle_reasons"] = throttle_reasons(d);
  return out;
}

std::vector<SensorReading> gpu_health_readings(const ResourceGraph& graph,
                                               const std::string& processor_path) {
  std::vector<SensorReading> out;
  const GpuDocuments d = documents_of(graph, processor_path);
  if (!d.processor) return out;
  const std::string gpu = resource_id(*d.processor, processor_path);
  const json counts = ecc(d);
  // Volatile counts where the service gives them (they start again at the GPU's reset), else
  // the aggregate, which is all HGX services publish.
  auto count = [&counts](const char* kind) { return ecc_count(counts, kind); };
  if (auto n = count("uncorrectable"))
    out.push_back(reading(gpu, "ECC_Uncorrectable", "gpu_ecc_uncorrectable", *n, "count"));
  if (auto n = count("correctable"))
    out.push_back(reading(gpu, "ECC_Correctable", "gpu_ecc_correctable", *n, "count"));
  const json remap = row_remap(d);
  if (remap.contains("failed"))
    out.push_back(reading(gpu, "Row_Remap_Failure", "gpu_row_remap_failure",
                          remap["failed"].get<bool>() ? 1 : 0, ""));
  const json link = pcie_link(d);
  if (link.contains("lanes") && link.contains("max_lanes")) {
    const bool narrower = link["lanes"].get<double>() < link["max_lanes"].get<double>();
    const int gen =
        pcie_generation(link.contains("generation") ? std::optional<std::string>(link["generation"])
                                                    : std::nullopt);
    const int max_gen = pcie_generation(link.contains("max_generation")
                                            ? std::optional<std::string>(link["max_generation"])
                                            : std::nullopt);
    const bool slower = gen > 0 && max_gen > 0 && gen < max_gen;
    out.push_back(reading(gpu, "PCIe_Link_Downgrade", "gpu_pcie_link_downgrade",
                          narrower || slower ? 1 : 0, ""));
  }
  const json errors = pcie_errors(d);
  if (errors.contains("fatal"))
    out.push_back(reading(gpu, "PCIe_Fatal_Errors", "gpu_pcie_fatal_errors",
                          errors["fatal"].get<double>(), "count"));
  const json links = nvlink(d);
  if (links.contains("errors")) {
    double total = 0;
    for (const auto& [key, value] : links["errors"].items())
      if (value.is_number()) total += value.get<double>();
    out.push_back(reading(gpu, "NVLink_Errors", "gpu_nvlink_errors", total, "count"));
  }
  return out;
}

}  // namespace ironhold::bmc::redfish

// BmcState's GPU and NVSwitch faults: the counters and flags an NVIDIA HGX service moves when a
// GPU or an NVSwitch starts to fail (tests/data/vendor-captures/nvidia-hgx/FACTS.md), so that the
// driver's GPU health readings and the alert rules on them can be driven end to end.
#include <algorithm>

#include "inventory/error.hpp"
#include "sim/redfish/bmc_state.hpp"

namespace ironhold::sim::redfish {

using nlohmann::json;

namespace {

unsigned long long count_of(const json& fault, const char* key) {
  const json& v = fault.at(key);
  if (!v.is_number_integer() || v.get<long long>() < 0)
    throw invalid(std::string(key) + " must be a count (0 or more)", key);
  return v.get<unsigned long long>();
}

bool flag_of(const json& fault, const char* key) {
  const json& v = fault.at(key);
  if (!v.is_boolean()) throw invalid(std::string(key) + " must be true or false", key);
  return v.get<bool>();
}

}  // namespace

void BmcState::set_gpu_fault(const std::string& gpu, const json& fault) {
  if (!fault.is_object()) throw invalid("a GPU fault is a JSON object");
  for (const auto& [key, value] : fault.items())
    if (key != "gpu" && key != "uncorrectable_ecc" && key != "correctable_ecc" &&
        key != "row_remap_failed" && key != "pcie_lanes" && key != "missing")
      throw invalid("unknown GPU fault \"" + key + "\"", key);
  std::lock_guard lock(mutex_);
  std::string path;
  for (auto& [url, doc] : documents_)
    if (doc.is_json && doc.json.value("ProcessorType", "") == "GPU" &&
        doc.json.value("Id", "") == gpu)
      path = url;
  if (path.empty()) throw not_found("no GPU Processor with Id " + gpu);
  json& processor = documents_.at(path).json;

  auto set_ecc = [&](const char* property, unsigned long long n) {
    // MemorySummary's metrics (HBM and SRAM together), as NVIDIA reports the GPU's total.
    const std::string metrics =
        link_path(processor.value("MemorySummary", json::object()), "Metrics");
    if (metrics.empty() || !documents_.count(metrics))
      throw invalid("GPU " + gpu + " has no MemorySummary metrics to count ECC errors in");
    documents_.at(metrics).json["LifeTime"][property] = n;
  };
  if (fault.contains("uncorrectable_ecc"))
    set_ecc("UncorrectableECCErrorCount", count_of(fault, "uncorrectable_ecc"));
  if (fault.contains("correctable_ecc"))
    set_ecc("CorrectableECCErrorCount", count_of(fault, "correctable_ecc"));
  if (fault.contains("row_remap_failed")) {
    const bool failed = flag_of(fault, "row_remap_failed");
    const json memories = processor.value("Links", json::object()).value("Memory", json::array());
    if (memories.empty()) throw invalid("GPU " + gpu + " links no Memory to remap rows in");
    for (const auto& m : memories) {
      const std::string memory = resource_path(m.value("@odata.id", std::string()));
      if (documents_.count(memory))
        documents_.at(memory).json["Oem"]["Nvidia"]["RowRemappingFailed"] = failed;
    }
  }
  if (fault.contains("pcie_lanes"))
    processor["SystemInterface"]["PCIe"]["LanesInUse"] = count_of(fault, "pcie_lanes");
  if (fault.contains("missing")) {
    const bool missing = flag_of(fault, "missing");
    const std::string collection = path.substr(0, path.rfind('/'));
    json& members = documents_.at(collection).json["Members"];
    auto& gone = missing_gpus_[collection];
    if (missing) {
      json kept = json::array();
      for (const auto& m : members)
        if (resource_path(m.value("@odata.id", std::string())) == path)
          gone.push_back(path);
        else
          kept.push_back(m);
      members = std::move(kept);
    } else if (std::find(gone.begin(), gone.end(), path) != gone.end()) {
      members.push_back({{"@odata.id", path}});
      gone.erase(std::find(gone.begin(), gone.end(), path));
    }
    documents_.at(collection).json["Members@odata.count"] = members.size();
  }
  changed();
}

void BmcState::set_nvswitch_fault(const std::string& nvswitch, const json& fault) {
  if (!fault.is_object()) throw invalid("an NVSwitch fault is a JSON object");
  for (const auto& [key, value] : fault.items())
    if (key != "switch" && key != "uncorrectable_ecc" && key != "correctable_ecc" &&
        key != "pcie_fatal_errors")
      throw invalid("unknown NVSwitch fault \"" + key + "\"", key);
  std::lock_guard lock(mutex_);
  std::string metrics;
  for (const auto& [url, doc] : documents_)
    if (doc.is_json && doc.json.value("@odata.type", "").rfind("#Switch.", 0) == 0 &&
        doc.json.value("Id", "") == nvswitch)
      metrics = link_path(doc.json, "Metrics");
  if (metrics.empty() || !documents_.count(metrics))
    throw not_found("no Switch with Id " + nvswitch + " and SwitchMetrics");
  json& m = documents_.at(metrics).json;
  if (fault.contains("uncorrectable_ecc"))
    m["InternalMemoryMetrics"]["LifeTime"]["UncorrectableECCErrorCount"] =
        count_of(fault, "uncorrectable_ecc");
  if (fault.contains("correctable_ecc"))
    m["InternalMemoryMetrics"]["LifeTime"]["CorrectableECCErrorCount"] =
        count_of(fault, "correctable_ecc");
  if (fault.contains("pcie_fatal_errors"))
    m["PCIeErrors"]["FatalErrorCount"] = count_of(fault, "pcie_fatal_errors");
  changed();
}

}  // namespace ironhold::sim::redfish

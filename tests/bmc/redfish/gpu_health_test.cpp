// A GPU's health as NVIDIA's HGX baseboard publishes it, read from a real DGX H100 capture
// (tests/data/vendor-captures/nvidia-hgx: GPU_SXM_1 with its ProcessorMetrics, HBM, NVLink port
// and metrics). Expected values come from the capture's documents.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "bmc/redfish/normalize_gpu.hpp"
#include "bmc/redfish/normalize_switches.hpp"
#include "bmc/redfish/resource_graph.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace gpu_health_test {

using namespace ironhold;
using namespace ironhold::bmc::redfish;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kCapture = fs::path(__FILE__).parent_path().parent_path().parent_path() / "data" /
                          "vendor-captures" / "nvidia-hgx" / "tree";

json read(const std::string& relative) {
  std::ifstream in(kCapture / relative / "index.json");
  REQUIRE(in.good());
  return json::parse(in);
}

// Every document of the capture, at its own @odata.id. The capture lacks the GPU's Ports
// collection; a crawl of the service would read it, so its one member is listed here.
ResourceGraph capture_graph() {
  ResourceGraph graph;
  for (const auto& entry : fs::recursive_directory_iterator(kCapture)) {
    if (entry.path().filename() != "index.json") continue;
    std::ifstream in(entry.path());
    json doc = json::parse(in);
    std::string id = doc.value("@odata.id", "");
    while (id.size() > 1 && id.back() == '/') id.pop_back();
    graph.add(id, std::move(doc));
  }
  const std::string gpu = "/redfish/v1/Systems/HGX_Baseboard_0/Processors/GPU_SXM_1";
  graph.set_members(gpu + "/Ports", {gpu + "/Ports/NVLink_0"});
  return graph;
}

const SensorReading* find_kind(const std::vector<SensorReading>& readings, const char* kind) {
  for (const auto& r : readings)
    if (r.kind == kind) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("a DGX H100 GPU's health reads from its HGX documents", "[redfish][gpu]") {
  const std::string gpu = "/redfish/v1/Systems/HGX_Baseboard_0/Processors/GPU_SXM_1";
  const ResourceGraph graph = capture_graph();
  const json processor = read("Systems/HGX_Baseboard_0/Processors/GPU_SXM_1");
  const json metrics = read("Systems/HGX_Baseboard_0/Processors/GPU_SXM_1/ProcessorMetrics");
  const json memory = read("Systems/HGX_Baseboard_0/Memory/GPU_SXM_1_DRAM_0");
  const json port_metrics =
      read("Systems/HGX_Baseboard_0/Processors/GPU_SXM_1/Ports/NVLink_0/Metrics");

  const json details = gpu_health_details(graph, gpu);
  INFO(details.dump(2));
  CHECK(details["uuid"] == processor["UUID"]);
  const json& pcie = processor["SystemInterface"]["PCIe"];
  CHECK(details["pcie"]["lanes"] == pcie["LanesInUse"]);
  CHECK(details["pcie"]["max_lanes"] == pcie["MaxLanes"]);
  CHECK(details["pcie"]["generation"] == pcie["PCIeType"]);
  CHECK(details["pcie"]["max_generation"] == pcie["MaxPCIeType"]);
  CHECK(details["pcie_errors"]["correctable"] == metrics["PCIeErrors"]["CorrectableErrorCount"]);
  CHECK(details["pcie_errors"]["fatal"] == metrics["PCIeErrors"]["FatalErrorCount"]);
  CHECK(details["pcie_errors"]["l0_to_recovery"] == metrics["PCIeErrors"]["L0ToRecoveryCount"]);
  // The capture has neither MemorySummary's metrics nor the HBM's: the SRAM's counts are all.
  CHECK(details["ecc"]["correctable_aggregate"] ==
        metrics["CacheMetricsTotal"]["LifeTime"]["CorrectableECCErrorCount"]);
  CHECK(details["ecc"]["uncorrectable_aggregate"] ==
        metrics["CacheMetricsTotal"]["LifeTime"]["UncorrectableECCErrorCount"]);
  CHECK_FALSE(details["ecc"].contains("correctable_volatile"));
  CHECK(details["row_remap"]["failed"] == memory["Oem"]["Nvidia"]["RowRemappingFailed"]);
  CHECK(details["row_remap"]["pending"] == memory["Oem"]["Nvidia"]["RowRemappingPending"]);
  const json& nvlink_errors = port_metrics["Oem"]["Nvidia"]["NVLinkErrors"];
  CHECK(details["nvlink"]["ports"] == 1);
  CHECK(details["nvlink"]["errors"]["data_crc"] == nvlink_errors["DataCRCCount"]);
  CHECK(details["nvlink"]["errors"]["replay"] == nvlink_errors["ReplayCount"]);
  json reasons = json::array();
  for (const auto& r : metrics["Oem"]["Nvidia"]["ThrottleReasons"])
    if (r != "NA") reasons.push_back(r);
  CHECK(details["throttle_reasons"] == reasons);

  const auto readings = gpu_health_readings(graph, gpu);
  const auto* uncorrectable = find_kind(readings, "gpu_ecc_uncorrectable");
  REQUIRE(uncorrectable);
  CHECK(uncorrectable->name == processor["Id"].get<std::string>() + "_ECC_Uncorrectable");
  CHECK(uncorrectable->value ==
        metrics["CacheMetricsTotal"]["LifeTime"]["UncorrectableECCErrorCount"].get<double>());
  const auto* remap = find_kind(readings, "gpu_row_remap_failure");
  REQUIRE(remap);
  CHECK(remap->value == (memory["Oem"]["Nvidia"]["RowRemappingFailed"].get<bool>() ? 1 : 0));
  const auto* link = find_kind(readings, "gpu_pcie_link_downgrade");
  REQUIRE(link);
  CHECK(link->value ==
        (pcie["LanesInUse"] < pcie["MaxLanes"] || pcie["PCIeType"] != pcie["MaxPCIeType"] ? 1 : 0));
  CHECK(find_kind(readings, "gpu_nvlink_errors"));
  CHECK(find_kind(readings, "gpu_pcie_fatal_errors"));
}

TEST_CASE("a GPU whose HBM failed a row remap, runs at half width and counts errors",
          "[redfish][gpu]") {
  // The capture's documents with the faults a failing card shows, set the way NVIDIA's service
  // reports them.
  const std::string gpu = "/redfish/v1/Systems/HGX_Baseboard_0/Processors/GPU_SXM_1";
  ResourceGraph graph = capture_graph();
  json processor = *graph.find(gpu);
  processor["SystemInterface"]["PCIe"]["LanesInUse"] = 8;
  graph.add(gpu, processor);
  json memory = *graph.find("/redfish/v1/Systems/HGX_Baseboard_0/Memory/GPU_SXM_1_DRAM_0");
  memory["Oem"]["Nvidia"]["RowRemappingFailed"] = true;
  graph.add("/redfish/v1/Systems/HGX_Baseboard_0/Memory/GPU_SXM_1_DRAM_0", memory);
  graph.add(
      gpu + "/MemorySummary/MemoryMetrics",
      {{"@odata.id", gpu + "/MemorySummary/MemoryMetrics"},
       {"LifeTime", {{"CorrectableECCErrorCount", 1200}, {"UncorrectableECCErrorCount", 3}}},
       {"CurrentPeriod", {{"CorrectableECCErrorCount", 40}, {"UncorrectableECCErrorCount", 1}}}});
  json metrics = *graph.find(gpu + "/ProcessorMetrics");
  metrics["Oem"]["Nvidia"]["ThrottleReasons"] = {"HWThermalSlowdown", "SWPowerCap"};
  graph.add(gpu + "/ProcessorMetrics", metrics);

  const json details = gpu_health_details(graph, gpu);
  INFO(details.dump(2));
  CHECK(details["ecc"]["uncorrectable_aggregate"] == 3);
  CHECK(details["ecc"]["uncorrectable_volatile"] == 1);
  CHECK(details["throttle_reasons"] == json::array({"HWThermalSlowdown", "SWPowerCap"}));
  const auto readings = gpu_health_readings(graph, gpu);
  CHECK(find_kind(readings, "gpu_ecc_uncorrectable")->value == 1);  // volatile, where given
  CHECK(find_kind(readings, "gpu_ecc_correctable")->value == 40);
  CHECK(find_kind(readings, "gpu_row_remap_failure")->value == 1);
  CHECK(find_kind(readings, "gpu_pcie_link_downgrade")->value == 1);
}

TEST_CASE("a DGX H100 NVSwitch reads as a component of the tray with its counters",
          "[redfish][gpu][nvswitch]") {
  ResourceGraph graph = capture_graph();
  // The capture holds the Switch and its metrics, not the collections a crawl reads them from.
  const std::string fabric = "/redfish/v1/Fabrics/HGX_NVLinkFabric_0";
  const std::string path = fabric + "/Switches/NVSwitch_0";
  graph.add("/redfish/v1", {{"Fabrics", {{"@odata.id", "/redfish/v1/Fabrics"}}}});
  graph.add("/redfish/v1/Fabrics", {{"Members", json::array()}});
  graph.set_members("/redfish/v1/Fabrics", {fabric});
  graph.add(fabric,
            {{"Id", "HGX_NVLinkFabric_0"}, {"Switches", {{"@odata.id", fabric + "/Switches"}}}});
  graph.set_members(fabric + "/Switches", {path});
  const json captured = read("Fabrics/HGX_NVLinkFabric_0/Switches/NVSwitch_0");
  const json metrics = read("Fabrics/HGX_NVLinkFabric_0/Switches/NVSwitch_0/SwitchMetrics");

  REQUIRE(nvswitch_paths(graph) == std::vector<std::string>{path});
  const Component c = nvswitch_component(graph, path);
  INFO(c.details.dump(2));
  CHECK(c.kind == ComponentKind::other);
  CHECK(c.slot == captured["Id"]);
  CHECK(c.model == captured["Model"].get<std::string>());
  CHECK(c.manufacturer == captured["Manufacturer"].get<std::string>());
  CHECK(c.firmware_version == captured["FirmwareVersion"].get<std::string>());
  CHECK(c.status == Health::ok);
  CHECK(c.details["type"] == "nvswitch");
  CHECK(c.details["uuid"] == captured["UUID"]);
  CHECK(c.details["bandwidth_gbps"] == captured["CurrentBandwidthGbps"]);
  const json& lifetime = metrics["InternalMemoryMetrics"]["LifeTime"];
  CHECK(c.details["ecc"]["uncorrectable_aggregate"] == lifetime["UncorrectableECCErrorCount"]);
  CHECK(c.details["ecc"]["correctable_aggregate"] == lifetime["CorrectableECCErrorCount"]);
  CHECK(c.details["pcie_errors"]["correctable"] == metrics["PCIeErrors"]["CorrectableErrorCount"]);
  CHECK(c.details["pcie_errors"]["l0_to_recovery"] == metrics["PCIeErrors"]["L0ToRecoveryCount"]);

  const auto readings = nvswitch_readings(graph, path);
  const SensorReading* uncorrectable = find_kind(readings, "nvswitch_ecc_uncorrectable");
  REQUIRE(uncorrectable);
  CHECK(uncorrectable->name == captured["Id"].get<std::string>() + "_ECC_Uncorrectable");
  CHECK(uncorrectable->value == lifetime["UncorrectableECCErrorCount"].get<double>());
  const SensorReading* fatal = find_kind(readings, "nvswitch_pcie_fatal_errors");
  REQUIRE(fatal);
  CHECK(fatal->value == metrics["PCIeErrors"]["FatalErrorCount"].get<double>());

  // A switch of another kind (a PCIe fabric's) is not an NVSwitch.
  json pcie = captured;
  pcie["SwitchType"] = "PCIe";
  graph.add(path, pcie);
  CHECK(nvswitch_paths(graph).empty());
}

}  // namespace gpu_health_test

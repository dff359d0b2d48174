// Our GPU-server mockup served by the simulator: what the demo's fleet is made of. Login through
// the service root's Links.Sessions, actions, firmware update and SEL on a LogEntryType SEL
// service.
#include <catch2/catch.hpp>

#include "curl_client.hpp"
#include "inventory/error.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace gpu_mockup_served_test {

using ironhold::test::curl_fetch;
using ironhold::test::CurlCall;
using ironhold::test::CurlReply;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path gpu_mockup = ironhold::test::project_mockup("hgx-gpu-server");
const std::string system_path = "/redfish/v1/Systems/HGX_0";

CurlCall post(const std::string& body) {
  CurlCall call;
  call.method = "POST";
  call.body = body;
  return call;
}

}  // namespace

TEST_CASE("the GPU server mockup serves sessions, actions, firmware updates and SEL",
          "[sim][mockups]") {
  ironhold::sim::RedfishFleetOptions options;
  options.mockup_dir = gpu_mockup;
  options.count = 2;
  options.reset_delay = std::chrono::milliseconds(50);
  ironhold::sim::RedfishFleet fleet(options);
  fleet.start();
  const std::string base = fleet.endpoint(0);

  const json root = curl_fetch(base + "/redfish/v1/").doc();
  const std::string sessions = root["Links"]["Sessions"]["@odata.id"];
  CurlCall login = post(R"({"UserName": "admin", "Password": "password"})");
  login.basic.clear();
  const auto created = curl_fetch(base + sessions, login);
  REQUIRE(created.status == 201);

  const json a = curl_fetch(base + system_path).doc();
  const json b = curl_fetch(fleet.endpoint(1) + system_path).doc();
  CHECK(a["SerialNumber"] != b["SerialNumber"]);
  CHECK(a["PowerState"] == "On");
  const std::string gpu_path = "/redfish/v1/Systems/HGX_Baseboard_0/Processors/GPU_SXM_1";
  const json gpu = curl_fetch(base + gpu_path).doc();
  CHECK(gpu["ProcessorType"] == "GPU");
  CHECK(gpu["SerialNumber"] != curl_fetch(fleet.endpoint(1) + gpu_path).doc()["SerialNumber"]);

  CHECK(curl_fetch(base + system_path + "/Actions/ComputerSystem.Reset",
                   post(R"({"ResetType": "PowerCycle"})"))
            .status == 204);
  CHECK(curl_fetch(base + "/redfish/v1/Managers/BMC/Actions/Manager.Reset",
                   post(R"({"ResetType": "ForceRestart"})"))
            .status == 204);
  CHECK(curl_fetch(base + "/redfish/v1/Managers/BMC/Actions/Manager.Reset",
                   post(R"({"ResetType": "Nope"})"))
            .status == 400);
  const std::string update = "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate";
  // Accepted as a Task (see redfish_update_test.cpp for where it goes from there).
  const CurlReply accepted =
      curl_fetch(base + update, post(R"({"ImageURI": "https://images.example/bmc.bin"})"));
  CHECK(accepted.status == 202);
  CHECK(accepted.headers.count("location") == 1);
  CHECK(curl_fetch(base + update, post("{}")).status == 400);
  CurlCall identify;
  identify.method = "PATCH";
  identify.body = R"({"LocationIndicatorActive": true})";
  CHECK(curl_fetch(base + system_path, identify).status == 200);
  CHECK(curl_fetch(base + system_path).doc()["LocationIndicatorActive"] == true);
  identify.body = R"({"LocationIndicatorActive": "on"})";
  CHECK(curl_fetch(base + system_path, identify).status == 400);

  const auto counters = fleet.state(0).counters();
  CHECK(counters.resets.at("PowerCycle") == 1);
  CHECK(counters.manager_resets.at("ForceRestart") == 1);
  CHECK(counters.firmware_updates == 1);
  CHECK(counters.identify_changes == 1);

  const json entry =
      fleet.state(0).append_sel("Critical", "GPU SXM 4 Xid 79: fallen off the bus", "Processor");
  const std::string entries = system_path + "/LogServices/SEL/Entries";
  CHECK(entry["@odata.id"] == entries + "/4");
  const json list = curl_fetch(base + entries).doc();
  CHECK(list["Members@odata.count"] == 4);
  CHECK(list["Members"].back() == json{{"@odata.id", entries + "/4"}});
  CHECK(curl_fetch(base + entries + "/4").doc()["Severity"] == "Critical");

  // GPU temperature sensors go over their caution threshold when the BMC is set to Warning.
  const std::string gpu_temp = "/redfish/v1/Chassis/HGX_GPU_SXM_1/Sensors/HGX_GPU_SXM_1_TEMP_0";
  CHECK(curl_fetch(base + gpu_temp).doc()["Reading"].get<double>() < 85);
  fleet.state(0).set_health("Warning");
  const json hot = curl_fetch(base + gpu_temp).doc();
  CHECK(hot["Reading"].get<double>() > 85);
  CHECK(hot["Status"]["Health"] == "Warning");
  CHECK(curl_fetch(fleet.endpoint(1) + gpu_temp).doc()["Reading"].get<double>() < 85);

  // A failing GPU: its counters and flags move where NVIDIA's service keeps them.
  fleet.state(0).set_gpu_fault(
      "GPU_SXM_1", {{"uncorrectable_ecc", 2}, {"row_remap_failed", true}, {"pcie_lanes", 8}});
  const json failing = curl_fetch(base + gpu_path).doc();
  CHECK(failing["SystemInterface"]["PCIe"]["LanesInUse"] == 8);
  CHECK(curl_fetch(base + failing["MemorySummary"]["Metrics"]["@odata.id"].get<std::string>())
            .doc()["LifeTime"]["UncorrectableECCErrorCount"] == 2);
  CHECK(curl_fetch(base + failing["Links"]["Memory"][0]["@odata.id"].get<std::string>())
            .doc()["Oem"]["Nvidia"]["RowRemappingFailed"] == true);
  fleet.state(0).set_gpu_fault("GPU_SXM_1", {{"missing", true}});
  const std::string gpus = "/redfish/v1/Systems/HGX_Baseboard_0/Processors";
  CHECK(curl_fetch(base + gpus).doc()["Members"].size() == 7);
  fleet.state(0).set_gpu_fault("GPU_SXM_1", {{"missing", false}});
  CHECK(curl_fetch(base + gpus).doc()["Members"].size() == 8);
  CHECK_THROWS_AS(fleet.state(0).set_gpu_fault("GPU_SXM_1", {{"melted", true}}), ironhold::Error);
  CHECK_THROWS_AS(fleet.state(0).set_gpu_fault("GPU_SXM_99", {{"missing", true}}), ironhold::Error);

  // An NVSwitch counting errors: in its SwitchMetrics, where the DGX capture has them.
  const std::string nvswitch = "/redfish/v1/Fabrics/HGX_NVLinkFabric_0/Switches/NVSwitch_2";
  const std::string switch_metrics =
      curl_fetch(base + nvswitch).doc()["Metrics"]["@odata.id"].get<std::string>();
  fleet.state(0).set_nvswitch_fault("NVSwitch_2",
                                    {{"uncorrectable_ecc", 3}, {"pcie_fatal_errors", 1}});
  const json counted = curl_fetch(base + switch_metrics).doc();
  CHECK(counted["InternalMemoryMetrics"]["LifeTime"]["UncorrectableECCErrorCount"] == 3);
  CHECK(counted["PCIeErrors"]["FatalErrorCount"] == 1);
  CHECK_THROWS_AS(fleet.state(0).set_nvswitch_fault("NVSwitch_2", {{"melted", true}}),
                  ironhold::Error);
  CHECK_THROWS_AS(fleet.state(0).set_nvswitch_fault("NVSwitch_9", {{"uncorrectable_ecc", 1}}),
                  ironhold::Error);
}

TEST_CASE("a --mockup list of MOCKUP:COUNT groups serves each group", "[sim][mockups]") {
  const fs::path compute = gpu_mockup.parent_path() / "compute-server";
  const auto single = ironhold::sim::mockup_groups(gpu_mockup.string(), 3);
  REQUIRE(single.size() == 1);
  CHECK(single[0].second == 3);
  const auto groups =
      ironhold::sim::mockup_groups(gpu_mockup.string() + ":2," + compute.string() + ":1", 9);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0] == std::make_pair(gpu_mockup, 2u));
  CHECK(groups[1] == std::make_pair(compute, 1u));
  CHECK_THROWS_AS(ironhold::sim::mockup_groups(gpu_mockup.string() + ":0", 1), ironhold::Error);
  CHECK_THROWS_AS(ironhold::sim::mockup_groups(gpu_mockup.string() + ":2,x", 1), ironhold::Error);

  ironhold::sim::RedfishFleetOptions options;
  options.mockup_dir = gpu_mockup.string() + ":2," + compute.string() + ":1";
  ironhold::sim::RedfishFleet fleet(options);
  fleet.start();
  REQUIRE(fleet.size() == 3);
  CHECK(curl_fetch(fleet.endpoint(1) + system_path).status == 200);
  CHECK(curl_fetch(fleet.endpoint(2) + "/redfish/v1/Systems/1").doc()["Model"] ==
        "Ironworks C1-9354");
}

}  // namespace gpu_mockup_served_test

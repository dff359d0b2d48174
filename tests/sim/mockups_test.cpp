// The project's own Redfish mockups (mockups/, made by scripts/make-mockups.py): they load, every
// link resolves, every document sits at its own @odata.id, and the GPU server has what the demo
// and the inventory's hardware summary rely on.
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "sim/redfish/mockup.hpp"
#include "tests/support/project_mockups.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace mockups_test {

using nlohmann::json;
namespace fs = std::filesystem;
namespace rf = ironhold::sim::redfish;

namespace {

// tests/sim/mockups_test.cpp -> the repository's mockups/ (no define needed; __FILE__ is absolute).
const fs::path mockups_dir = ironhold::test::project_mockups();

void collect_links(const json& value, std::set<std::string>& out) {
  if (value.is_array()) {
    for (const auto& item : value) collect_links(item, out);
  } else if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      if (key == "@odata.id" && item.is_string())
        out.insert(item.get<std::string>());
      else
        collect_links(item, out);
    }
  }
}

int count_type(const json& collection, const rf::Mockup& m, const std::string& processor_type) {
  int n = 0;
  for (const auto& member : collection["Members"]) {
    const json& p = m.documents().at(member["@odata.id"].get<std::string>()).json;
    if (p.value("ProcessorType", "") == processor_type) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("our mockups load, every link resolves and every document is at its own id",
          "[sim][mockups]") {
  for (const char* name : {"hgx-gpu-server", "compute-server"}) {
    INFO(name);
    const auto mockup = rf::Mockup::load(mockups_dir / name);
    const auto& docs = mockup.documents();
    REQUIRE(docs.size() > 50);
    for (const auto& [path, doc] : docs) {
      INFO(path);
      REQUIRE(doc.is_json);
      CHECK(doc.json.value("@odata.id", "") == path);
      const std::string type = doc.json.value("@odata.type", "");
      CHECK(type.rfind('#', 0) == 0);
      CHECK(type.find('.') != std::string::npos);
      std::set<std::string> links;
      collect_links(doc.json, links);
      for (const auto& link : links) {
        INFO("link " << link);
        if (link.find('#') != std::string::npos) continue;  // a JSON pointer into a document
        CHECK(docs.count(rf::resource_path(link)) == 1);
      }
    }
  }
}

TEST_CASE(
    "the GPU server is laid out as an HGX: a host, a GPU baseboard, NVSwitches, full firmware",
    "[sim][mockups]") {
  const auto mockup = rf::Mockup::load(mockups_dir / "hgx-gpu-server");
  const auto& docs = mockup.documents();
  const json systems = docs.at("/redfish/v1/Systems").json;
  REQUIRE(systems["Members"].size() == 2);
  const json system = docs.at(systems["Members"][0]["@odata.id"].get<std::string>()).json;
  CHECK(system["MemorySummary"]["TotalSystemMemoryGiB"] == 2048);
  CHECK(system["Actions"]["#ComputerSystem.Reset"]["ResetType@Redfish.AllowableValues"].size() >=
        5);
  CHECK(system.contains("LocationIndicatorActive"));
  const json host_processors = docs.at(system["Processors"]["@odata.id"].get<std::string>()).json;
  CHECK(count_type(host_processors, mockup, "CPU") == 2);
  CHECK(count_type(host_processors, mockup, "GPU") == 0);
  CHECK(docs.at(system["Memory"]["@odata.id"].get<std::string>()).json["Members"].size() == 32);

  // The GPU tray: HGX_Baseboard_0, its GPUs with their metrics, their HBM, their chassis.
  const json board = docs.at(systems["Members"][1]["@odata.id"].get<std::string>()).json;
  CHECK(board["Id"] == "HGX_Baseboard_0");
  const json processors = docs.at(board["Processors"]["@odata.id"].get<std::string>()).json;
  CHECK(count_type(processors, mockup, "GPU") == 8);
  for (const auto& member : processors["Members"]) {
    const json gpu = docs.at(member["@odata.id"].get<std::string>()).json;
    INFO(gpu["Id"]);
    for (const char* link : {"Metrics", "Ports"})
      CHECK(docs.count(gpu[link]["@odata.id"].get<std::string>()) == 1);
    CHECK(docs.count(gpu["MemorySummary"]["Metrics"]["@odata.id"].get<std::string>()) == 1);
    const json hbm = docs.at(gpu["Links"]["Memory"][0]["@odata.id"].get<std::string>()).json;
    CHECK(hbm["Oem"]["Nvidia"].contains("RowRemappingFailed"));
    const json chassis = docs.at(gpu["Links"]["Chassis"]["@odata.id"].get<std::string>()).json;
    CHECK(chassis["Links"]["ComputerSystems"][0]["@odata.id"] == board["@odata.id"]);
    int temps = 0;
    for (const auto& s :
         docs.at(chassis["Sensors"]["@odata.id"].get<std::string>()).json["Members"])
      temps += docs.at(s["@odata.id"].get<std::string>()).json["ReadingType"] == "Temperature";
    CHECK(temps == 1);
  }
  CHECK(docs.at("/redfish/v1/Fabrics/HGX_NVLinkFabric_0/Switches").json["Members"].size() == 4);
  CHECK(docs.at("/redfish/v1").json["Links"]["Sessions"]["@odata.id"] ==
        "/redfish/v1/SessionService/Sessions");

  std::set<std::string> firmware;
  for (const auto& member :
       docs.at("/redfish/v1/UpdateService/FirmwareInventory").json["Members"]) {
    std::string id = docs.at(member["@odata.id"].get<std::string>()).json["Id"];
    if (id.rfind("HGX_FW_", 0) == 0) id = id.substr(7);
    firmware.insert(id.substr(0, id.find('_')));
  }
  for (const char* kind : {"BMC", "BIOS", "GPU", "NVSwitch", "NIC", "PSU", "CPLD"}) {
    INFO(kind);
    CHECK(firmware.count(kind) == 1);
  }

  const auto compute = rf::Mockup::load(mockups_dir / "compute-server");
  const json csys = compute.documents().at("/redfish/v1/Systems/1").json;
  CHECK(count_type(compute.documents().at("/redfish/v1/Systems/1/Processors").json, compute,
                   "GPU") == 0);
  CHECK(csys["ProcessorSummary"]["Count"] == 2);
}

}  // namespace mockups_test

// libFuzzer target for the Redfish normalizer. The input is a sequence of JSON documents separated
// by the byte 0x01 (never valid inside JSON text). Each one is merged into a skeleton document at
// a fixed path of a small service (root, a System with Processors, Memory, Storage, NICs, a
// Chassis with Sensors, Thermal/Power old and new, a Manager with a log, UpdateService), so the
// fuzzer's bytes reach every path of the normalizer instead of stopping at a missing link. A
// document that is not an object replaces the skeleton outright.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bmc/redfish/normalizer.hpp"
#include "bmc/redfish/resource_graph.hpp"

namespace {

using nlohmann::json;
using namespace ironhold::bmc::redfish;

const std::string v1 = "/redfish/v1";
const std::string sys = v1 + "/Systems/1";
const std::string chassis = v1 + "/Chassis/1";
const std::string manager = v1 + "/Managers/1";

json link(const std::string& path) {
  return {{"@odata.id", path}};
}
json members(std::initializer_list<std::string> paths) {
  json list = json::array();
  for (const auto& p : paths) list.push_back(link(p));
  return {{"Members", list}};
}

// The skeleton, in the order the input's documents are assigned to it.
std::vector<std::pair<std::string, json>> skeleton() {
  return {
      {v1,
       {{"Systems", link(v1 + "/Systems")},
        {"Chassis", link(v1 + "/Chassis")},
        {"Managers", link(v1 + "/Managers")},
        {"UpdateService", link(v1 + "/UpdateService")}}},
      {sys,
       {{"Id", "1"},
        {"Processors", link(sys + "/Processors")},
        {"Memory", link(sys + "/Memory")},
        {"Storage", link(sys + "/Storage")},
        {"SimpleStorage", link(sys + "/SimpleStorage")},
        {"EthernetInterfaces", link(sys + "/EthernetInterfaces")},
        {"LogServices", link(sys + "/LogServices")},
        {"Links", {{"Chassis", {link(chassis)}}, {"ManagedBy", {link(manager)}}}}}},
      {sys + "/Processors", members({sys + "/Processors/CPU1", chassis + "/Processors/GPU1"})},
      {sys + "/Processors/CPU1", {{"ProcessorType", "CPU"}}},
      {chassis + "/Processors/GPU1", {{"ProcessorType", "GPU"}}},
      {sys + "/Memory", members({sys + "/Memory/DIMM1"})},
      {sys + "/Memory/DIMM1", json::object()},
      {sys + "/Storage", members({sys + "/Storage/1"})},
      {sys + "/Storage/1", {{"Drives", {link(sys + "/Storage/1/Drives/0")}}}},
      {sys + "/Storage/1/Drives/0", json::object()},
      {sys + "/SimpleStorage", members({sys + "/SimpleStorage/1"})},
      {sys + "/SimpleStorage/1", {{"Devices", json::array()}}},
      {sys + "/EthernetInterfaces", members({sys + "/EthernetInterfaces/1"})},
      {sys + "/EthernetInterfaces/1", json::object()},
      {v1 + "/Chassis", members({chassis})},
      {chassis,
       {{"Sensors", link(chassis + "/Sensors")},
        {"ThermalSubsystem", link(chassis + "/ThermalSubsystem")},
        {"PowerSubsystem", link(chassis + "/PowerSubsystem")},
        {"Thermal", link(chassis + "/Thermal")},
        {"Power", link(chassis + "/Power")},
        {"Links", {{"ComputerSystems", {link(sys)}}}}}},
      {chassis + "/Sensors", members({chassis + "/Sensors/T1"})},
      {chassis + "/Sensors/T1", json::object()},
      {chassis + "/ThermalSubsystem",
       {{"Fans", link(chassis + "/ThermalSubsystem/Fans")},
        {"ThermalMetrics", link(chassis + "/ThermalSubsystem/ThermalMetrics")}}},
      {chassis + "/ThermalSubsystem/Fans", members({chassis + "/ThermalSubsystem/Fans/1"})},
      {chassis + "/ThermalSubsystem/Fans/1", json::object()},
      {chassis + "/ThermalSubsystem/ThermalMetrics", json::object()},
      {chassis + "/PowerSubsystem",
       {{"PowerSupplies", link(chassis + "/PowerSubsystem/PowerSupplies")}}},
      {chassis + "/PowerSubsystem/PowerSupplies",
       members({chassis + "/PowerSubsystem/PowerSupplies/1"})},
      {chassis + "/PowerSubsystem/PowerSupplies/1", json::object()},
      {chassis + "/Thermal", json::object()},
      {chassis + "/Power", json::object()},
      {v1 + "/Managers", members({manager})},
      {manager, {{"LogServices", link(manager + "/LogServices")}}},
      {sys + "/LogServices", members({sys + "/LogServices/SEL"})},
      {sys + "/LogServices/SEL", {{"Entries", link(sys + "/LogServices/SEL/Entries")}}},
      {sys + "/LogServices/SEL/Entries", members({sys + "/LogServices/SEL/Entries/1"})},
      {sys + "/LogServices/SEL/Entries/1", json::object()},
      {v1 + "/UpdateService",
       {{"FirmwareInventory", link(v1 + "/UpdateService/FirmwareInventory")}}},
      {v1 + "/UpdateService/FirmwareInventory",
       members({v1 + "/UpdateService/FirmwareInventory/BMC"})},
      {v1 + "/UpdateService/FirmwareInventory/BMC", json::object()},
  };
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto base = skeleton();
  std::string_view input(reinterpret_cast<const char*>(data), size);
  ResourceGraph graph;
  for (const auto& [path, document] : base) {
    json merged = document;
    if (!input.empty()) {
      auto end = input.find('\x01');
      std::string_view chunk = input.substr(0, end);
      input = end == std::string_view::npos ? std::string_view{} : input.substr(end + 1);
      json parsed = json::parse(chunk.begin(), chunk.end(), nullptr, /*allow_exceptions=*/false);
      if (!parsed.is_discarded()) {
        if (parsed.is_object() && merged.is_object())
          merged.update(parsed);  // the fuzzer's properties win, the skeleton's links stay
        else
          merged = std::move(parsed);
      }
    }
    graph.add(path, std::move(merged));
  }
  (void)normalize_status(graph, sys);
  (void)normalize_sensors(graph, sys);
  (void)normalize_inventory(graph, sys);
  (void)manager_firmware(graph);
  return 0;
}

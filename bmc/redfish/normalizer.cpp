#include "bmc/redfish/normalizer.hpp"

#include <array>
#include <set>
#include <utility>

#include "bmc/redfish/bios.hpp"
#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/normalize_gpu.hpp"
#include "bmc/redfish/normalize_links.hpp"
#include "bmc/redfish/normalize_parts.hpp"
#include "bmc/redfish/normalize_switches.hpp"

namespace ironhold::bmc::redfish {

namespace {

using nlohmann::json;

// Redfish PowerState -> the canonical state. Anything else (null, "Unknown", a typo) is unknown.
constexpr std::array<std::pair<std::string_view, PowerState>, 5> power_states = {{
    {"On", PowerState::on},
    {"Off", PowerState::off},
    {"PoweringOn", PowerState::transitioning},
    {"PoweringOff", PowerState::transitioning},
    {"Paused", PowerState::transitioning},
}};

constexpr std::array<std::pair<std::string_view, Health>, 3> health_values = {{
    {"OK", Health::ok},
    {"Warning", Health::warning},
    {"Critical", Health::critical},
}};

std::optional<Health> health_value(const json* status, std::string_view key) {
  std::optional<std::string> text = read_string(status, key);
  if (!text) return std::nullopt;
  for (const auto& [name, health] : health_values)
    if (name == *text) return health;
  return std::nullopt;
}

}  // namespace

PowerState power_state_of(std::string_view redfish_value) {
  for (const auto& [name, state] : power_states)
    if (name == redfish_value) return state;
  return PowerState::unknown;
}

std::string resource_id(const json& document, const std::string& path) {
  if (auto id = read_string(&document, "Id")) return *id;
  return last_segment(path);
}

bool is_absent(const json& document) {
  return read_string(read_object(&document, "Status"), "State") == "Absent";
}

Health health_of(const json& status) {
  if (!status.is_object()) return Health::unknown;
  std::optional<std::string> state = read_string(&status, "State");
  if (state == "Absent" || state == "Disabled") return Health::unknown;
  if (auto rollup = health_value(&status, "HealthRollup")) return *rollup;
  return health_value(&status, "Health").value_or(Health::unknown);
}

SystemStatus normalize_status(const ResourceGraph& graph, const std::string& system_path) {
  SystemStatus status;
  status.system_id = last_segment(system_path);
  const json* system = graph.find(system_path);
  if (!system) return status;
  status.system_id = resource_id(*system, system_path);
  if (auto power = read_string(system, "PowerState")) status.power_state = power_state_of(*power);
  if (const json* redfish_status = read_object(system, "Status"))
    status.health = health_of(*redfish_status);
  status.last_reset_time = read_string(system, "LastResetTime");
  return status;
}

namespace {

// The readings and log entries of the System and of its GPU baseboards, each once (a chassis or a
// manager two of them name is read once), with the GPUs' health readings.
void add_readings_and_events(const ResourceGraph& graph, const std::string& system_path,
                             const std::vector<std::string>& baseboards,
                             std::vector<SensorReading>& sensors,
                             std::vector<HardwareEvent>& events) {
  std::set<std::string> names;
  std::set<std::string> entries;
  for (auto& s : sensors) names.insert(s.name);
  for (auto& e : events) entries.insert(e.source_id);
  std::vector<std::string> owners = {system_path};
  owners.insert(owners.end(), baseboards.begin(), baseboards.end());
  for (std::size_t i = 0; i < owners.size(); ++i) {
    if (i > 0) {
      for (auto& s : normalize_sensor_readings(graph, owners[i]))
        if (names.insert(s.name).second) sensors.push_back(std::move(s));
      for (auto& e : normalize_events(graph, owners[i]))
        if (entries.insert(e.source_id).second) events.push_back(std::move(e));
    }
    const json* system = graph.find(owners[i]);
    const std::string processors = system ? link_of(*system, "Processors") : std::string{};
    for (const auto& gpu :
         processors.empty() ? std::vector<std::string>{} : graph.members(processors))
      for (auto& s : gpu_health_readings(graph, gpu))
        if (names.insert(s.name).second) sensors.push_back(std::move(s));
  }
  // The NVSwitches of the GPU tray are the host's, as its GPUs are.
  if (!baseboards.empty())
    for (const auto& path : nvswitch_paths(graph))
      for (auto& s : nvswitch_readings(graph, path))
        if (names.insert(s.name).second) sensors.push_back(std::move(s));
}

}  // namespace

SystemSensors normalize_sensors(const ResourceGraph& graph, const std::string& system_path,
                                const std::vector<std::string>& baseboards) {
  SystemSensors result;
  result.system_id = normalize_status(graph, system_path).system_id;
  result.sensors = normalize_sensor_readings(graph, system_path);
  result.events = normalize_events(graph, system_path);
  add_readings_and_events(graph, system_path, baseboards, result.sensors, result.events);
  result.input_power = normalize_input_power(graph, system_path);
  return result;
}

SystemInventory normalize_inventory(const ResourceGraph& graph, const std::string& system_path,
                                    const std::vector<std::string>& baseboards) {
  SystemInventory inventory;
  inventory.status = normalize_status(graph, system_path);
  inventory.system_id = inventory.status.system_id;
  if (const json* system = graph.find(system_path)) {
    SystemIdentity& id = inventory.identity;
    id.manufacturer = read_string(system, "Manufacturer");
    id.model = read_string(system, "Model");
    id.sku = read_string(system, "SKU");
    id.serial = read_string(system, "SerialNumber");
    id.part_number = read_string(system, "PartNumber");
    id.asset_tag = read_string(system, "AssetTag");
    id.uuid = read_string(system, "UUID");
    id.bios_version = read_string(system, "BiosVersion");
    const std::string bios = link_of(*system, "Bios");
    if (!bios.empty()) inventory.bios = bios_settings(*system, graph.find(bios));
  }
  ComponentsResult parts = normalize_components(graph, system_path, baseboards);
  if (!baseboards.empty())
    for (const auto& path : nvswitch_paths(graph)) {
      Component nvswitch = nvswitch_component(graph, path);
      if (nvswitch.slot.empty()) continue;
      parts.slot_by_path[path] = nvswitch.slot;
      parts.components.push_back(std::move(nvswitch));
    }
  inventory.firmware = normalize_firmware(graph, system_path, parts);
  inventory.summary = parts.summary;
  inventory.components = std::move(parts.components);
  inventory.unlisted_kinds = std::move(parts.unlisted_kinds);
  inventory.sensors = normalize_sensor_readings(graph, system_path);
  inventory.events = normalize_events(graph, system_path);
  add_readings_and_events(graph, system_path, baseboards, inventory.sensors, inventory.events);
  inventory.input_power = normalize_input_power(graph, system_path);
  return inventory;
}

std::optional<std::string> manager_firmware(const ResourceGraph& graph) {
  std::string collection = root_link(graph, "Managers");
  if (collection.empty()) return std::nullopt;
  // A fabric or enclosure manager may come first; the BMC is the one the service runs on.
  std::optional<std::string> first;
  for (const auto& path : graph.members(collection)) {
    const json* manager = graph.find(path);
    if (!manager) continue;
    auto version = read_string(manager, "FirmwareVersion");
    if (!version) continue;
    if (read_string(manager, "ManagerType") == "BMC") return version;
    if (!first) first = version;
  }
  return first;
}

}  // namespace ironhold::bmc::redfish

#pragma once
// The normalized hardware model every driver produces: what a server (or an instance) is made of,
// what its sensors read, what firmware it runs and what its hardware logs say. Drivers fill these
// from Redfish, IPMI or a cloud API; nothing past a driver sees a vendor structure.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/model/bios.hpp"
#include "inventory/model/enums.hpp"

namespace ironhold {

enum class ComponentKind { cpu, gpu, memory, drive, nic, psu, fan, other };
std::string_view to_string(ComponentKind);
template <>
std::optional<ComponentKind> parse_enum<ComponentKind>(std::string_view);
template <>
std::span<const std::string_view> enum_names<ComponentKind>();

// Hardware event severity; "info" where the log says OK.
enum class Severity { info, warning, critical };
std::string_view to_string(Severity);
template <>
std::optional<Severity> parse_enum<Severity>(std::string_view);
template <>
std::span<const std::string_view> enum_names<Severity>();

struct SystemIdentity {
  std::optional<std::string> manufacturer, model, sku, serial, part_number, asset_tag, uuid,
      bios_version;
};

// The summary the node carries as `hardware` (definitions in issue 3, "The hardware summary").
struct HardwareSummary {
  int cpu_count = 0;                     // present CPU sockets of the System's Processors
  std::optional<std::string> cpu_model;  // the first CPU's model
  int gpu_count = 0;                     // present GPUs of the System's Processors
  std::optional<std::string> gpu_model;  // the first GPU's model
  // What the driver said the GPU is. The database keeps it and turns gpu_model into the GPU
  // catalogue's canonical name (migration 0024); a driver leaves it empty.
  std::optional<std::string> gpu_model_raw;
  std::optional<double> memory_gib;         // TotalSystemMemoryGiB, else the sum of present modules
  int drive_count = 0;                      // present drives of the System's storage
  std::optional<double> drive_capacity_gb;  // their capacity in GB (10^9 bytes)
};

struct Component {
  ComponentKind kind = ComponentKind::other;
  // Stable and unique per node and kind across inspections: the resource's Id where it is unique,
  // else a path-derived name ("Storage1/Drive3"). Used to tell changes apart from additions.
  std::string slot;
  std::string name;
  std::optional<std::string> model, manufacturer, serial, part_number, firmware_version;
  Health status = Health::unknown;
  // kind-specific facts: cpu/gpu {cores, threads, memory_gib}, memory {capacity_mib}, drive
  // {capacity_bytes, media}, nic {macs: [...], speed_mbps}, psu {capacity_watts}, fan {}.
  nlohmann::json details = nlohmann::json::object();
};

struct FirmwareItem {
  std::string component;  // stable id: the FirmwareInventory member's Id ("BMC", "BIOS", "GPU0")
  std::string name;       // its Name
  std::string version;
  bool updateable = false;
  std::optional<std::string> related_component;  // the slot of the component it belongs to
};

struct SensorReading {
  std::string name;  // unique per node: the sensor's Id (or a path-derived name)
  // temperature, gpu_temperature, fan, power, voltage, current, energy, humidity, other
  std::string kind;
  std::optional<double> value;
  std::string unit;  // Redfish units: "Cel", "RPM", "W", "V", "A", "%", "kWh"
  Health status = Health::unknown;
  // The BMC's own thresholds where it gives them: {"upper_critical": 90, "upper_caution": 80, ...}
  nlohmann::json thresholds = nlohmann::json::object();
};

struct HardwareEvent {
  std::string source_id;  // the BMC's identity for the entry (its @odata.id), to skip repeats
  Severity severity = Severity::info;
  std::optional<std::string> occurred_at;  // RFC 3339 as the BMC gave it; absent if unparseable
  std::string message;
  nlohmann::json details = nlohmann::json::object();  // EntryType, MessageId, SensorType, log name
};

// Power and health of one System (what the 30-second poll reads).
struct SystemStatus {
  std::string system_id;  // the System's Id: names child nodes "<enrolled>-<Id>"
  PowerState power_state = PowerState::unknown;
  Health health = Health::unknown;  // the rollup where given, else the System's own
  // When the System was last reset, as the BMC reports it (Redfish LastResetTime): evidence a
  // task compares before and after a reset. Absent where the BMC keeps none (IPMI).
  std::optional<std::string> last_reset_time;
};

// What a node draws from the wall, where its BMC says so: the energy the cost report prices.
// Kept apart from the sensor readings, which may hold the same power several times over (a
// chassis total, each power supply, each GPU).
struct InputPower {
  double watts = 0;
  std::string source;  // which reading it is: "Sensor Total_Power", "PowerControl", ...
};

// Sensors and new log entries of one System (what the 60-second poll reads).
struct SystemSensors {
  std::string system_id;
  std::vector<SensorReading> sensors;
  std::vector<HardwareEvent> events;
  std::optional<InputPower> input_power;
};

// Everything a full inspection reads about one System.
struct SystemInventory {
  std::string system_id;
  SystemIdentity identity;
  SystemStatus status;
  HardwareSummary summary;
  std::vector<Component> components;
  std::vector<FirmwareItem> firmware;  // FirmwareInventory + the Manager's firmware + BIOS
  std::vector<SensorReading> sensors;
  std::vector<HardwareEvent> events;
  std::optional<InputPower> input_power;
  // Kinds whose collection the BMC answered with no members where a running server must have
  // some: the host's Processors or Memory, from a BMC that has not read the host's inventory yet
  // (bmcweb with the host off, or a BMC just restarted). The components recorded before stay,
  // and so do their counts in the summary; nothing is taken for removed.
  std::vector<ComponentKind> unlisted_kinds;
  // The BIOS settings, where the BMC reports them (Redfish Bios); absent: not read.
  std::optional<BiosSettings> bios;
};

nlohmann::json to_json(const HardwareSummary& summary);

}  // namespace ironhold

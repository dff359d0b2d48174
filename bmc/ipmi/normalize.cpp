#include "bmc/ipmi/normalize.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "inventory/util/time.hpp"

namespace ironhold::bmc::ipmi {

namespace {

constexpr std::uint8_t kTemperature = 0x01, kVoltage = 0x02, kCurrent = 0x03, kFan = 0x04;
constexpr std::uint8_t kProcessor = 0x07, kPowerSupply = 0x08, kPowerUnit = 0x09;
constexpr std::uint8_t kMemory = 0x0C, kDriveSlot = 0x0D;
constexpr std::uint8_t kUnitWatts = 6;

bool mentions_gpu(const std::string& name) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return upper.find("GPU") != std::string::npos;
}

std::optional<std::string> non_empty(const std::string& s) {
  if (s.empty()) return std::nullopt;
  return s;
}

// The discrete states (sensor-specific offsets, IPMI v2.0 table 42-3) that make a sensor
// critical or warning; nothing else on a discrete sensor says anything about health.
Health discrete_health(std::uint8_t sensor_type, std::uint16_t bits) {
  auto has = [bits](int offset) { return (bits & (1u << offset)) != 0; };
  switch (sensor_type) {
    case kProcessor:  // 0 IERR, 1 thermal trip, 2 FRB1, 3 FRB2, 4 FRB3, 8 disabled
      if (has(0) || has(1)) return Health::critical;
      if (has(2) || has(3) || has(4)) return Health::warning;
      return Health::ok;
    case kPowerSupply:  // 0 presence, 1 failure, 2 predictive failure, 3 input lost, ...
      if (has(1) || has(3) || has(4) || has(5)) return Health::critical;
      if (has(2) || has(6)) return Health::warning;
      return Health::ok;
    case kPowerUnit:  // 4 AC lost, 5 soft power control failure, 6 failure, 7 predictive
      if (has(4) || has(5) || has(6)) return Health::critical;
      if (has(7)) return Health::warning;
      return Health::ok;
    case kMemory:  // 1 uncorrectable ECC, 3 parity, 5 correctable ECC logging limit, 8 critical
                   // overtemp
      if (has(1) || has(3) || has(8) || has(10)) return Health::critical;
      if (has(0) || has(5)) return Health::warning;
      return Health::ok;
    case kDriveSlot:  // 1 drive fault, 2 predictive failure
      if (has(1)) return Health::critical;
      if (has(2)) return Health::warning;
      return Health::ok;
    default:
      return Health::ok;
  }
}

}  // namespace

Health worse(Health a, Health b) {
  auto rank = [](Health h) {
    switch (h) {
      case Health::critical:
        return 3;
      case Health::warning:
        return 2;
      case Health::ok:
        return 1;
      case Health::unknown:
        return 0;
    }
    return 0;
  };
  return rank(a) >= rank(b) ? a : b;
}

std::string sensor_kind(const SdrRecord& record) {
  switch (record.sensor_type) {
    case kTemperature:
      return mentions_gpu(record.name) ? "gpu_temperature" : "temperature";
    case kVoltage:
      return "voltage";
    case kCurrent:
      return record.base_unit == kUnitWatts ? "power" : "current";
    case kFan:
      return "fan";
    default:
      return record.base_unit == kUnitWatts && record.is_threshold_sensor() ? "power" : "other";
  }
}

Health reading_health(const SdrRecord& record, const SensorReadingRaw& reading) {
  if (record.is_threshold_sensor()) {
    if (!reading.raw) return Health::unknown;
    const std::uint8_t bits = reading.threshold_bits;
    if (bits & 0x36) return Health::critical;  // lower/upper critical and non-recoverable
    if (bits & 0x09) return Health::warning;   // lower/upper non-critical
    return Health::ok;
  }
  return discrete_health(record.sensor_type, reading.discrete_bits);
}

SensorReading to_sensor_reading(const SdrRecord& record, const SensorReadingRaw& reading,
                                std::string name) {
  SensorReading out;
  out.name = std::move(name);
  out.kind = sensor_kind(record);
  out.status = reading_health(record, reading);
  if (record.is_threshold_sensor()) {
    out.unit = sdr_unit_name(record.base_unit, record.percentage);
    if (reading.raw && record.conversion) out.value = record.conversion->convert(*reading.raw);
    const SensorThresholds& t = record.thresholds;
    auto put = [&](const char* key, const std::optional<double>& v) {
      if (v) out.thresholds[key] = *v;
    };
    put("upper_fatal", t.upper_non_recoverable);
    put("upper_critical", t.upper_critical);
    put("upper_caution", t.upper_non_critical);
    put("lower_caution", t.lower_non_critical);
    put("lower_critical", t.lower_critical);
    put("lower_fatal", t.lower_non_recoverable);
  } else {
    // A discrete sensor's value is its state bits, kept for the person reading the node.
    out.unit = "";
  }
  return out;
}

std::vector<std::string> unique_sensor_names(const std::vector<const SdrRecord*>& records) {
  std::vector<std::string> names;
  std::map<std::string, int> count;
  for (const SdrRecord* r : records) {
    std::string base = r->name.empty() ? "sensor " + std::to_string(r->sensor_number) : r->name;
    const int n = ++count[base];
    names.push_back(n == 1 ? base : base + " #" + std::to_string(n));
  }
  return names;
}

HardwareEvent to_event(const SelEntry& entry) {
  HardwareEvent event;
  event.source_id =
      "sel:" + std::to_string(entry.record_id) + ":" + std::to_string(entry.timestamp.value_or(0));
  event.severity = entry.severity;
  if (entry.timestamp && !entry.pre_init)
    event.occurred_at = format_rfc3339(
        SystemTime(std::chrono::seconds(static_cast<std::int64_t>(*entry.timestamp))));
  event.message = entry.description;
  const auto type_name = sensor_type_name(entry.sensor_type);
  event.details = {{"log", "SEL"},
                   {"record_id", entry.record_id},
                   {"record_type", entry.record_type},
                   {"sensor_type", type_name.empty() ? nlohmann::json(nullptr)
                                                     : nlohmann::json(std::string(type_name))},
                   {"sensor_number", entry.sensor_number},
                   {"event_type", entry.event_type},
                   {"asserted", !entry.deassertion}};
  if (entry.pre_init) event.details["seconds_since_bmc_init"] = entry.timestamp.value_or(0);
  return event;
}

Health chassis_health(const ChassisStatus& status) {
  if (status.power_fault || status.power_overload || status.cooling_fault) return Health::critical;
  if (status.drive_fault || status.control_fault) return Health::warning;
  return Health::ok;
}

SystemIdentity identity_from_fru(const FruData& fru) {
  SystemIdentity id;
  if (fru.product) {
    id.manufacturer = non_empty(fru.product->manufacturer);
    id.model = non_empty(fru.product->name);
    id.serial = non_empty(fru.product->serial);
    id.part_number = non_empty(fru.product->part_number);
    id.asset_tag = non_empty(fru.product->asset_tag);
  }
  if (fru.board) {
    if (!id.manufacturer) id.manufacturer = non_empty(fru.board->manufacturer);
    if (!id.model) id.model = non_empty(fru.board->product_name);
    if (!id.serial) id.serial = non_empty(fru.board->serial);
  }
  if (!id.serial && fru.chassis) id.serial = non_empty(fru.chassis->serial);
  return id;
}

std::vector<Component> fru_components(const FruData& fru, std::uint8_t fru_id,
                                      const std::string& device_name) {
  std::vector<Component> out;
  const std::string prefix = "fru" + std::to_string(fru_id) + "/";
  const std::string label = device_name.empty() ? "FRU " + std::to_string(fru_id) : device_name;
  const bool psu = mentions_gpu(device_name) ? false
                                             : device_name.find("PSU") != std::string::npos ||
                                                   device_name.find("Power") != std::string::npos;
  if (fru.chassis) {
    Component c;
    c.kind = ComponentKind::other;
    c.slot = prefix + "chassis";
    c.name = label + " chassis";
    c.serial = non_empty(fru.chassis->serial);
    c.part_number = non_empty(fru.chassis->part_number);
    c.status = Health::unknown;
    c.details = {{"source", "fru"}, {"area", "chassis"}, {"chassis_type", fru.chassis->type}};
    out.push_back(std::move(c));
  }
  if (fru.board) {
    Component c;
    c.kind = psu ? ComponentKind::psu : ComponentKind::other;
    c.slot = prefix + "board";
    c.name = label + " board";
    c.manufacturer = non_empty(fru.board->manufacturer);
    c.model = non_empty(fru.board->product_name);
    c.serial = non_empty(fru.board->serial);
    c.part_number = non_empty(fru.board->part_number);
    c.details = {{"source", "fru"}, {"area", "board"}};
    if (fru.board->manufactured) c.details["manufactured"] = *fru.board->manufactured;
    out.push_back(std::move(c));
  }
  if (fru.product && fru_id != 0) {
    // FRU 0's product area is the server itself (its identity); others are parts.
    Component c;
    c.kind = psu ? ComponentKind::psu : ComponentKind::other;
    c.slot = prefix + "product";
    c.name = label;
    c.manufacturer = non_empty(fru.product->manufacturer);
    c.model = non_empty(fru.product->name);
    c.serial = non_empty(fru.product->serial);
    c.part_number = non_empty(fru.product->part_number);
    c.firmware_version = non_empty(fru.product->version);
    c.details = {{"source", "fru"}, {"area", "product"}};
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ironhold::bmc::ipmi

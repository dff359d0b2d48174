#pragma once
// The sensors of the simulated GPU server and their Sensor Data Records (IPMI v2.0 section 43):
// full records with a linear conversion and readable thresholds for the analog sensors, compact
// records for the discrete ones (power supply presence). The table is the same for every BMC;
// each BMC keeps only its current raw readings.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bmc/ipmi/bytes.hpp"

namespace ironhold::sim::ipmi {

// Threshold bits as Get Sensor Thresholds and the SDR masks number them.
enum ThresholdBit : std::uint8_t {
  kLowerNonCritical = 0,
  kLowerCritical = 1,
  kLowerNonRecoverable = 2,
  kUpperNonCritical = 3,
  kUpperCritical = 4,
  kUpperNonRecoverable = 5,
};

struct SensorDef {
  std::uint8_t number = 0;
  std::string name;               // the SDR ID string, at most 16 characters
  std::uint8_t sensor_type = 0;   // 01h temperature, 02h voltage, 04h fan, 08h power supply
  std::uint8_t reading_type = 0;  // 01h threshold, 6Fh sensor-specific (discrete)
  std::uint8_t entity_id = 0, entity_instance = 0;
  std::uint8_t base_unit = 0;  // 1 degrees C, 4 volts, 6 watts, 18 RPM
  int m = 1, b = 0, b_exp = 0, r_exp = 0;
  std::uint8_t threshold_mask = 0;           // readable thresholds, by ThresholdBit
  std::array<std::uint8_t, 6> thresholds{};  // raw, by ThresholdBit
  std::uint8_t nominal = 0;  // raw reading (threshold) or state bits (discrete) at start

  bool discrete() const { return reading_type != 0x01; }
};

// The GPU server every simulated BMC models: CPU, GPU and inlet temperatures, fans, 12 V, total
// power, and two power supplies' presence. Sensor numbers and SDR record IDs count from 1.
std::span<const SensorDef> gpu_server_sensors();
const SensorDef* find_sensor(std::uint8_t number);
const SensorDef* find_sensor(const std::string& name);

// value = (M * raw + B * 10^Bexp) * 10^Rexp
double sensor_value(const SensorDef& sensor, std::uint8_t raw);
// The raw reading closest to `value`; nothing when it falls outside 0..255.
std::optional<std::uint8_t> sensor_raw(const SensorDef& sensor, double value);
// Get Sensor Reading's threshold comparison bits for `raw` (bit per ThresholdBit).
std::uint8_t threshold_status(const SensorDef& sensor, std::uint8_t raw);
// "ok", "non-critical", "critical", "non-recoverable" for listings.
std::string threshold_state_name(std::uint8_t status);

// The SDR repository: one encoded record per sensor, record IDs 1..N (built once, shared).
const std::vector<bmc::ipmi::Bytes>& sdr_repository();

}  // namespace ironhold::sim::ipmi

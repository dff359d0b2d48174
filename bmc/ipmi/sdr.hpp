#pragma once
// Sensor Data Records (IPMI v2.0 section 43): what a BMC's sensors are, how to turn a raw
// reading into a value with units, and where the FRU devices and controllers are. Records are
// read whole (5-byte header + body) from Get SDR; this decodes one record at a time.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bmc/ipmi/bytes.hpp"

namespace ironhold::bmc::ipmi {

enum class SdrType : std::uint8_t {
  full_sensor = 0x01,
  compact_sensor = 0x02,
  event_only = 0x03,
  fru_locator = 0x11,
  mc_locator = 0x12,
};

// The linear conversion of a full sensor record: value = L((M*raw + B*10^Bexp) * 10^Rexp).
struct SensorConversion {
  enum class Format {
    unsigned_,
    ones_complement,
    twos_complement,
    none
  } format = Format::unsigned_;
  int m = 1, b = 0, b_exp = 0, r_exp = 0;
  std::uint8_t linearization =
      0;  // 0 linear; 1-11 ln, log10, log2, e, 10^x, 2^x, 1/x, x², x³, √x, ∛x

  // Nothing when the sensor gives no analog reading or the function is undefined there.
  std::optional<double> convert(std::uint8_t raw) const;
};

struct SensorThresholds {
  // In converted units; present where the record says the threshold is readable.
  std::optional<double> upper_non_recoverable, upper_critical, upper_non_critical;
  std::optional<double> lower_non_recoverable, lower_critical, lower_non_critical;
};

struct SdrRecord {
  std::uint16_t record_id = 0;
  SdrType type = SdrType::full_sensor;
  std::string name;  // the ID string
  // Sensors (full, compact, event-only):
  std::uint8_t owner_id = 0, owner_lun = 0, sensor_number = 0;
  std::uint8_t entity_id = 0, entity_instance = 0;
  std::uint8_t sensor_type = 0;         // 01h temperature, 02h voltage, 04h fan, 08h power supply
  std::uint8_t event_reading_type = 0;  // 01h threshold, 6Fh sensor-specific, ...
  std::uint8_t base_unit = 0;           // table 43-15 code
  bool percentage = false;
  std::optional<SensorConversion> conversion;  // full records only
  SensorThresholds thresholds;                 // full records only
  // FRU device locator: the FRU device ID of a logical FRU on the controller.
  std::optional<std::uint8_t> fru_device_id;
  // Management controller locator: its slave address.
  std::optional<std::uint8_t> controller_address;

  bool is_threshold_sensor() const { return event_reading_type == 0x01; }
};

// One record (header and body); an error for a record too short for its type. Types this driver
// does not use (OEM, entity association, ...) come back with only record_id, type and name empty.
std::variant<SdrRecord, std::string> decode_sdr(ByteView record);

// The unit's Redfish-style name ("Cel", "V", "RPM", "W", "A", "%", ...); "" when unspecified.
std::string sdr_unit_name(std::uint8_t base_unit, bool percentage);

}  // namespace ironhold::bmc::ipmi

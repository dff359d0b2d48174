#include "sim/ipmi/sensors.hpp"

#include <cmath>

namespace ironhold::sim::ipmi {

namespace {

using bmc::ipmi::Bytes;

constexpr std::uint8_t kTemperature = 0x01, kVoltage = 0x02, kFan = 0x04, kPowerSupply = 0x08,
                       kOtherUnits = 0x0B;
constexpr std::uint8_t kThreshold = 0x01, kSensorSpecific = 0x6F;
constexpr std::uint8_t kUpper =
    (1 << kUpperNonCritical) | (1 << kUpperCritical) | (1 << kUpperNonRecoverable);

SensorDef temperature(std::uint8_t number, std::string name, std::uint8_t entity,
                      std::uint8_t instance, std::uint8_t unc, std::uint8_t uc, std::uint8_t unr,
                      std::uint8_t nominal) {
  SensorDef s;
  s.number = number;
  s.name = std::move(name);
  s.sensor_type = kTemperature;
  s.reading_type = kThreshold;
  s.entity_id = entity;
  s.entity_instance = instance;
  s.base_unit = 1;
  s.threshold_mask = kUpper;
  s.thresholds[kUpperNonCritical] = unc;
  s.thresholds[kUpperCritical] = uc;
  s.thresholds[kUpperNonRecoverable] = unr;
  s.nominal = nominal;
  return s;
}

SensorDef fan(std::uint8_t number, std::uint8_t instance) {
  SensorDef s;
  s.number = number;
  s.name = "Fan" + std::to_string(instance);
  s.sensor_type = kFan;
  s.reading_type = kThreshold;
  s.entity_id = 0x1D;  // fan device
  s.entity_instance = instance;
  s.base_unit = 18;  // RPM
  s.m = 100;
  s.threshold_mask = (1 << kLowerNonCritical) | (1 << kLowerCritical) | (1 << kLowerNonRecoverable);
  s.thresholds[kLowerNonCritical] = 15;  // 1500 RPM
  s.thresholds[kLowerCritical] = 10;
  s.thresholds[kLowerNonRecoverable] = 5;
  s.nominal = 90;
  return s;
}

SensorDef power_supply(std::uint8_t number, std::uint8_t instance) {
  SensorDef s;
  s.number = number;
  s.name = "PSU" + std::to_string(instance) + " Status";
  s.sensor_type = kPowerSupply;
  s.reading_type = kSensorSpecific;
  s.entity_id = 0x0A;  // power supply
  s.entity_instance = instance;
  s.nominal = 0x01;  // presence detected
  return s;
}

std::vector<SensorDef> build_table() {
  std::vector<SensorDef> t;
  t.push_back(temperature(1, "CPU0 Temp", 0x03, 1, 85, 95, 100, 45));
  t.push_back(temperature(2, "CPU1 Temp", 0x03, 2, 85, 95, 100, 47));
  for (std::uint8_t g = 0; g < 4; ++g)
    t.push_back(temperature(static_cast<std::uint8_t>(3 + g), "GPU" + std::to_string(g) + " Temp",
                            0x0B, static_cast<std::uint8_t>(g + 1), 83, 90, 95, 52));
  SensorDef inlet = temperature(7, "Inlet Temp", 0x37, 1, 40, 45, 50, 24);
  inlet.threshold_mask |= (1 << kLowerNonCritical) | (1 << kLowerCritical);
  inlet.thresholds[kLowerNonCritical] = 5;
  inlet.thresholds[kLowerCritical] = 2;
  t.push_back(inlet);
  for (std::uint8_t f = 1; f <= 4; ++f) t.push_back(fan(static_cast<std::uint8_t>(7 + f), f));

  SensorDef volts;
  volts.number = 12;
  volts.name = "12V";
  volts.sensor_type = kVoltage;
  volts.reading_type = kThreshold;
  volts.entity_id = 0x07;  // system board
  volts.entity_instance = 1;
  volts.base_unit = 4;
  volts.m = 6;
  volts.r_exp = -2;  // 0.06 V per count: 200 = 12.00 V
  volts.threshold_mask = (1 << kLowerNonCritical) | (1 << kLowerCritical) |
                         (1 << kUpperNonCritical) | (1 << kUpperCritical);
  volts.thresholds[kLowerNonCritical] = 190;
  volts.thresholds[kLowerCritical] = 180;
  volts.thresholds[kUpperNonCritical] = 210;
  volts.thresholds[kUpperCritical] = 220;
  volts.nominal = 200;
  t.push_back(volts);

  SensorDef power;
  power.number = 13;
  power.name = "Total Power";
  power.sensor_type = kOtherUnits;
  power.reading_type = kThreshold;
  power.entity_id = 0x15;  // power unit
  power.entity_instance = 1;
  power.base_unit = 6;  // watts
  power.m = 10;
  power.threshold_mask = (1 << kUpperCritical);
  power.thresholds[kUpperCritical] = 240;  // 2400 W
  power.nominal = 118;
  t.push_back(power);

  t.push_back(power_supply(14, 1));
  t.push_back(power_supply(15, 2));
  return t;
}

const std::vector<SensorDef>& table() {
  static const std::vector<SensorDef> sensors = build_table();
  return sensors;
}

std::uint8_t low(int v) {
  return static_cast<std::uint8_t>(v & 0xFF);
}

// M, B and their exponents as the full record packs them: 10-bit two's complement M and B,
// 4-bit two's complement exponents.
void put_conversion(Bytes& out, const SensorDef& s) {
  const int m = s.m & 0x3FF, b = s.b & 0x3FF;
  out.push_back(low(m));
  out.push_back(static_cast<std::uint8_t>((m >> 8) << 6));  // tolerance 0
  out.push_back(low(b));
  out.push_back(static_cast<std::uint8_t>((b >> 8) << 6));  // accuracy 0
  out.push_back(0x00);                                      // accuracy, direction unspecified
  out.push_back(static_cast<std::uint8_t>(((s.r_exp & 0x0F) << 4) | (s.b_exp & 0x0F)));
}

void put_id_string(Bytes& out, const std::string& name) {
  const std::size_t n = std::min<std::size_t>(name.size(), 16);
  out.push_back(static_cast<std::uint8_t>(0xC0 | n));  // 8-bit ASCII + Latin-1
  out.insert(out.end(), name.begin(), name.begin() + static_cast<std::ptrdiff_t>(n));
}

void put_header(Bytes& out, std::uint16_t record_id, std::uint8_t type) {
  bmc::ipmi::put_u16(out, record_id);
  out.push_back(0x51);  // SDR version 1.5
  out.push_back(type);
  out.push_back(0);  // body length, patched at the end
}

void put_sensor_key(Bytes& out, const SensorDef& s) {
  out.push_back(0x20);  // owner: the BMC
  out.push_back(0x00);  // LUN 0
  out.push_back(s.number);
  out.push_back(s.entity_id);
  out.push_back(s.entity_instance);
  out.push_back(0x67);  // initialization: scanning, events, thresholds, hysteresis, enabled
}

Bytes encode_full(const SensorDef& s, std::uint16_t record_id) {
  Bytes out;
  put_header(out, record_id, 0x01);
  put_sensor_key(out, s);
  out.push_back(0x54);  // auto re-arm, hysteresis readable, thresholds readable
  out.push_back(s.sensor_type);
  out.push_back(s.reading_type);
  // Assertion events (going low for lower, going high for upper thresholds) and which
  // comparisons Get Sensor Reading returns.
  std::uint16_t assertion = 0, deassertion = 0;
  const auto has = [&s](ThresholdBit bit) { return (s.threshold_mask >> bit) & 1; };
  if (has(kLowerNonCritical)) assertion |= 0x1001;
  if (has(kLowerCritical)) assertion |= 0x2004;
  if (has(kLowerNonRecoverable)) assertion |= 0x4010;
  if (has(kUpperNonCritical)) assertion |= 0x0080, deassertion |= 0x1080;
  if (has(kUpperCritical)) assertion |= 0x0200, deassertion |= 0x2200;
  if (has(kUpperNonRecoverable)) assertion |= 0x0800, deassertion |= 0x4800;
  deassertion |= assertion & 0x0015;  // lower events deassert too
  bmc::ipmi::put_u16(out, assertion);
  bmc::ipmi::put_u16(out, deassertion);
  out.push_back(s.threshold_mask);  // readable
  out.push_back(0x00);              // settable: none
  out.push_back(0x00);              // unsigned, no rate, not a percentage
  out.push_back(s.base_unit);
  out.push_back(0x00);  // no modifier unit
  out.push_back(0x00);  // linear
  put_conversion(out, s);
  out.push_back(0x01);  // nominal reading given
  out.push_back(s.nominal);
  out.push_back(0xFF);  // normal maximum
  out.push_back(0x00);  // normal minimum
  out.push_back(0xFF);  // sensor maximum
  out.push_back(0x00);  // sensor minimum
  for (const ThresholdBit bit : {kUpperNonRecoverable, kUpperCritical, kUpperNonCritical,
                                 kLowerNonRecoverable, kLowerCritical, kLowerNonCritical})
    out.push_back(has(bit) ? s.thresholds[bit] : 0x00);
  out.push_back(0x01);  // positive-going hysteresis
  out.push_back(0x01);  // negative-going hysteresis
  out.push_back(0x00);
  out.push_back(0x00);
  out.push_back(0x00);  // OEM
  put_id_string(out, s.name);
  out[4] = static_cast<std::uint8_t>(out.size() - 5);
  return out;
}

Bytes encode_compact(const SensorDef& s, std::uint16_t record_id) {
  Bytes out;
  put_header(out, record_id, 0x02);
  put_sensor_key(out, s);
  out.push_back(0x40);  // auto re-arm, no hysteresis, no thresholds
  out.push_back(s.sensor_type);
  out.push_back(s.reading_type);
  bmc::ipmi::put_u16(out, 0x000F);  // presence, failure, predictive failure, input lost
  bmc::ipmi::put_u16(out, 0x000F);
  bmc::ipmi::put_u16(out, 0x000F);  // states the reading reports
  out.push_back(0x00);
  out.push_back(0x00);  // unspecified unit
  out.push_back(0x00);
  out.push_back(0x01);  // not shared
  out.push_back(0x00);
  out.push_back(0x00);  // hysteresis
  out.push_back(0x00);
  for (int i = 0; i < 3; ++i) out.push_back(0x00);
  out.push_back(0x00);  // OEM
  put_id_string(out, s.name);
  out[4] = static_cast<std::uint8_t>(out.size() - 5);
  return out;
}

std::vector<Bytes> build_repository() {
  std::vector<Bytes> records;
  std::uint16_t id = 1;
  for (const SensorDef& s : table())
    records.push_back(s.discrete() ? encode_compact(s, id++) : encode_full(s, id++));
  return records;
}

}  // namespace

std::span<const SensorDef> gpu_server_sensors() {
  return table();
}

const SensorDef* find_sensor(std::uint8_t number) {
  for (const SensorDef& s : table())
    if (s.number == number) return &s;
  return nullptr;
}

const SensorDef* find_sensor(const std::string& name) {
  for (const SensorDef& s : table())
    if (s.name == name) return &s;
  return nullptr;
}

double sensor_value(const SensorDef& s, std::uint8_t raw) {
  return (s.m * static_cast<double>(raw) + s.b * std::pow(10.0, s.b_exp)) * std::pow(10.0, s.r_exp);
}

std::optional<std::uint8_t> sensor_raw(const SensorDef& s, double value) {
  if (s.m == 0 || !std::isfinite(value)) return std::nullopt;
  const double raw =
      std::round((value / std::pow(10.0, s.r_exp) - s.b * std::pow(10.0, s.b_exp)) / s.m);
  if (raw < 0 || raw > 255) return std::nullopt;
  return static_cast<std::uint8_t>(raw);
}

std::uint8_t threshold_status(const SensorDef& s, std::uint8_t raw) {
  if (s.discrete()) return 0;
  std::uint8_t status = 0;
  for (const ThresholdBit bit : {kLowerNonCritical, kLowerCritical, kLowerNonRecoverable}) {
    if (((s.threshold_mask >> bit) & 1) && raw <= s.thresholds[bit]) status |= 1 << bit;
  }
  for (const ThresholdBit bit : {kUpperNonCritical, kUpperCritical, kUpperNonRecoverable}) {
    if (((s.threshold_mask >> bit) & 1) && raw >= s.thresholds[bit]) status |= 1 << bit;
  }
  return status;
}

std::string threshold_state_name(std::uint8_t status) {
  if (status & ((1 << kLowerNonRecoverable) | (1 << kUpperNonRecoverable)))
    return "non-recoverable";
  if (status & ((1 << kLowerCritical) | (1 << kUpperCritical))) return "critical";
  if (status & ((1 << kLowerNonCritical) | (1 << kUpperNonCritical))) return "non-critical";
  return "ok";
}

const std::vector<bmc::ipmi::Bytes>& sdr_repository() {
  static const std::vector<Bytes> records = build_repository();
  return records;
}

}  // namespace ironhold::sim::ipmi

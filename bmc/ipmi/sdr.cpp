#include "bmc/ipmi/sdr.hpp"

#include <cmath>

#include "bmc/ipmi/fru.hpp"

namespace ironhold::bmc::ipmi {

namespace {

// A two's complement number of `bits` bits.
int signed_bits(unsigned value, int bits) {
  const unsigned sign = 1u << (bits - 1);
  return (value & sign) ? static_cast<int>(value) - static_cast<int>(1u << bits)
                        : static_cast<int>(value);
}

std::string id_string(ByteView record, std::size_t at) {
  if (at >= record.size()) return {};
  const std::uint8_t type_length = record[at];
  const std::size_t length = std::min<std::size_t>(type_length & 0x1F, record.size() - at - 1);
  return decode_fru_field(type_length, record.subspan(at + 1, length));
}

}  // namespace

std::optional<double> SensorConversion::convert(std::uint8_t raw) const {
  double x = 0;
  switch (format) {
    case Format::unsigned_:
      x = raw;
      break;
    case Format::ones_complement:
      x = (raw & 0x80) ? -static_cast<double>(static_cast<std::uint8_t>(~raw)) : raw;
      break;
    case Format::twos_complement:
      x = static_cast<std::int8_t>(raw);
      break;
    case Format::none:
      return std::nullopt;
  }
  const double y = (m * x + b * std::pow(10.0, b_exp)) * std::pow(10.0, r_exp);
  double value = y;
  switch (linearization) {
    case 0:
      break;
    case 1:
      value = std::log(y);
      break;
    case 2:
      value = std::log10(y);
      break;
    case 3:
      value = std::log2(y);
      break;
    case 4:
      value = std::exp(y);
      break;
    case 5:
      value = std::pow(10.0, y);
      break;
    case 6:
      value = std::pow(2.0, y);
      break;
    case 7:
      if (y == 0) return std::nullopt;
      value = 1.0 / y;
      break;
    case 8:
      value = y * y;
      break;
    case 9:
      value = y * y * y;
      break;
    case 10:
      value = std::sqrt(y);
      break;
    case 11:
      value = std::cbrt(y);
      break;
    default:  // 70h-7Fh non-linear (OEM formula): read as linear, as ipmitool does
      break;
  }
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

std::variant<SdrRecord, std::string> decode_sdr(ByteView r) {
  if (r.size() < 5) return std::string("SDR record shorter than its header");
  SdrRecord out;
  out.record_id = static_cast<std::uint16_t>(r[0] | (r[1] << 8));
  out.type = static_cast<SdrType>(r[3]);
  if (r[4] + 5u > r.size())
    return "SDR record " + std::to_string(out.record_id) + " shorter than its length field";
  r = r.first(r[4] + 5u);
  const auto too_short = [&out](const char* type) {
    return "SDR " + std::string(type) + " record " + std::to_string(out.record_id) +
           " is too short";
  };
  const auto sensor_head = [&out, r] {
    out.owner_id = r[5];
    out.owner_lun = r[6] & 0x03;
    out.sensor_number = r[7];
    out.entity_id = r[8];
    out.entity_instance = r[9];
  };
  switch (out.type) {
    case SdrType::full_sensor: {
      if (r.size() < 48) return too_short("full sensor");
      sensor_head();
      out.sensor_type = r[12];
      out.event_reading_type = r[13];
      out.percentage = (r[20] & 0x01) != 0;
      out.base_unit = r[21];
      SensorConversion c;
      c.format = static_cast<SensorConversion::Format>(r[20] >> 6);
      c.linearization = r[23] & 0x7F;
      c.m = signed_bits(r[24] | ((r[25] & 0xC0u) << 2), 10);
      c.b = signed_bits(r[26] | ((r[27] & 0xC0u) << 2), 10);
      c.r_exp = signed_bits(r[29] >> 4, 4);
      c.b_exp = signed_bits(r[29] & 0x0Fu, 4);
      out.conversion = c;
      if (out.is_threshold_sensor()) {
        const std::uint8_t readable = r[18];
        const auto threshold = [&](int bit, std::size_t at) -> std::optional<double> {
          if (!(readable & (1u << bit))) return std::nullopt;
          return c.convert(r[at]);
        };
        out.thresholds.lower_non_critical = threshold(0, 41);
        out.thresholds.lower_critical = threshold(1, 40);
        out.thresholds.lower_non_recoverable = threshold(2, 39);
        out.thresholds.upper_non_critical = threshold(3, 38);
        out.thresholds.upper_critical = threshold(4, 37);
        out.thresholds.upper_non_recoverable = threshold(5, 36);
      }
      out.name = id_string(r, 47);
      break;
    }
    case SdrType::compact_sensor:
      if (r.size() < 32) return too_short("compact sensor");
      sensor_head();
      out.sensor_type = r[12];
      out.event_reading_type = r[13];
      out.percentage = (r[20] & 0x01) != 0;
      out.base_unit = r[21];
      out.name = id_string(r, 31);
      break;
    case SdrType::event_only:
      if (r.size() < 17) return too_short("event-only sensor");
      sensor_head();
      out.sensor_type = r[10];
      out.event_reading_type = r[11];
      out.name = id_string(r, 16);
      break;
    case SdrType::fru_locator:
      if (r.size() < 16) return too_short("FRU device locator");
      if (r[7] & 0x80) out.fru_device_id = r[6];  // logical FRU device: readable by ID
      out.entity_id = r[12];
      out.entity_instance = r[13];
      out.name = id_string(r, 15);
      break;
    case SdrType::mc_locator:
      if (r.size() < 16) return too_short("management controller locator");
      out.controller_address = r[5];
      out.entity_id = r[12];
      out.entity_instance = r[13];
      out.name = id_string(r, 15);
      break;
    default:
      break;
  }
  return out;
}

std::string sdr_unit_name(std::uint8_t base_unit, bool percentage) {
  if (percentage) return "%";
  switch (base_unit) {
    case 1:
      return "Cel";
    case 2:
      return "[degF]";
    case 3:
      return "K";
    case 4:
      return "V";
    case 5:
      return "A";
    case 6:
      return "W";
    case 7:
      return "J";
    case 9:
      return "V.A";
    case 14:
      return "kPa";
    case 17:
      return "[ft_i]3/min";
    case 18:
      return "RPM";
    case 19:
      return "Hz";
    case 22:
      return "s";
    case 58:
      return "ppm";
    case 60:
      return "dB";
    default:
      return "";
  }
}

}  // namespace ironhold::bmc::ipmi

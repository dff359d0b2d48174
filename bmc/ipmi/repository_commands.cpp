#include "bmc/ipmi/repository_commands.hpp"

#include <cstdio>

#include "bmc/ipmi/commands.hpp"

namespace ironhold::bmc::ipmi {

namespace {

std::uint16_t le16(ByteView d, std::size_t at) {
  return static_cast<std::uint16_t>(d[at] | (d[at + 1] << 8));
}

std::uint32_t le32(ByteView d, std::size_t at) {
  return static_cast<std::uint32_t>(d[at]) | static_cast<std::uint32_t>(d[at + 1]) << 8 |
         static_cast<std::uint32_t>(d[at + 2]) << 16 | static_cast<std::uint32_t>(d[at + 3]) << 24;
}

Command with_u16s(std::uint8_t netfn, std::uint8_t command, std::uint16_t a, std::uint16_t b) {
  Command c{netfn, command, {}};
  put_u16(c.data, a);
  put_u16(c.data, b);
  return c;
}

}  // namespace

Command reserve_sdr_repository() {
  return {kNetFnStorage, 0x22, {}};
}
Command reserve_sel() {
  return {kNetFnStorage, 0x42, {}};
}

std::variant<std::uint16_t, std::string> parse_reservation(ByteView data) {
  if (data.size() < 2) return response_too_short("Reserve", data.size(), 2);
  return le16(data, 0);
}

Command get_sdr(std::uint16_t reservation, std::uint16_t record_id, std::uint8_t offset,
                std::uint8_t count) {
  Command c = with_u16s(kNetFnStorage, 0x23, reservation, record_id);
  c.data.push_back(offset);
  c.data.push_back(count);
  return c;
}

std::variant<SdrChunk, std::string> parse_sdr_chunk(ByteView data) {
  if (data.size() < 2) return response_too_short("Get SDR", data.size(), 2);
  return SdrChunk{le16(data, 0), Bytes(data.begin() + 2, data.end())};
}

Command get_sensor_reading(std::uint8_t sensor_number) {
  return {kNetFnSensor, 0x2D, {sensor_number}};
}

std::variant<SensorReadingRaw, std::string> parse_sensor_reading(ByteView data) {
  if (data.size() < 2) return response_too_short("Get Sensor Reading", data.size(), 2);
  SensorReadingRaw r;
  // Byte 2: bit 6 scanning enabled, bit 5 reading/state unavailable.
  const bool scanning = (data[1] & 0x40) != 0;
  const bool unavailable = (data[1] & 0x20) != 0;
  if (scanning && !unavailable) r.raw = data[0];
  if (data.size() >= 3) {
    r.threshold_bits = data[2] & 0x3F;
    r.discrete_bits = data[2];
  }
  if (data.size() >= 4) r.discrete_bits |= static_cast<std::uint16_t>((data[3] & 0x7F) << 8);
  return r;
}

Command get_sel_info() {
  return {kNetFnStorage, 0x40, {}};
}

std::variant<SelInfo, std::string> parse_sel_info(ByteView data) {
  if (data.size() < 13) return response_too_short("Get SEL Info", data.size(), 13);
  return SelInfo{le16(data, 1), le32(data, 5), le32(data, 9)};
}

Command get_sel_entry(std::uint16_t record_id) {
  // Reservation 0: reading whole entries needs none.
  Command c = with_u16s(kNetFnStorage, 0x43, 0, record_id);
  c.data.push_back(0);     // offset
  c.data.push_back(0xFF);  // the entire record
  return c;
}

std::variant<SelChunk, std::string> parse_sel_chunk(ByteView data) {
  if (data.size() < 2 + 16) return response_too_short("Get SEL Entry", data.size(), 18);
  return SelChunk{le16(data, 0), Bytes(data.begin() + 2, data.begin() + 18)};
}

Command get_fru_area_info(std::uint8_t fru_id) {
  return {kNetFnStorage, 0x10, {fru_id}};
}

std::variant<FruAreaInfo, std::string> parse_fru_area_info(ByteView data) {
  if (data.size() < 3) return response_too_short("Get FRU Inventory Area Info", data.size(), 3);
  return FruAreaInfo{le16(data, 0), (data[2] & 0x01) != 0};
}

Command read_fru_data(std::uint8_t fru_id, std::uint16_t offset, std::uint8_t count) {
  Command c{kNetFnStorage, 0x11, {fru_id}};
  put_u16(c.data, offset);
  c.data.push_back(count);
  return c;
}

std::variant<Bytes, std::string> parse_fru_data(ByteView data) {
  if (data.empty()) return response_too_short("Read FRU Data", 0, 1);
  const std::size_t count = data[0];
  if (data.size() - 1 < count)
    return "Read FRU Data says " + std::to_string(count) + " bytes but carries " +
           std::to_string(data.size() - 1);
  return Bytes(data.begin() + 1, data.begin() + 1 + static_cast<std::ptrdiff_t>(count));
}

Command get_system_guid() {
  return {kNetFnApp, 0x37, {}};
}

std::optional<std::string> parse_system_guid(ByteView data) {
  if (data.size() < 16) return std::nullopt;
  char text[37];
  int at = 0;
  for (int i = 15; i >= 0; --i) {
    at += std::snprintf(text + at, sizeof text - static_cast<std::size_t>(at), "%02x",
                        data[static_cast<std::size_t>(i)]);
    if (i == 12 || i == 10 || i == 8 || i == 6) text[at++] = '-';
  }
  text[at] = '\0';
  return std::string(text);
}

}  // namespace ironhold::bmc::ipmi

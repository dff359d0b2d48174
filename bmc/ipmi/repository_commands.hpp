#pragma once
// The commands that read a BMC's repositories and sensors (IPMI v2.0 sections 31-35): the SDR
// repository, sensor readings, the SEL and FRU inventory devices; and the system GUID. Requests
// as Command values, decoders for their response data (after the completion code).
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "bmc/ipmi/bytes.hpp"
#include "bmc/ipmi/commands.hpp"

namespace ironhold::bmc::ipmi {

// Record IDs that mean "the first" and "there is no next".
inline constexpr std::uint16_t kFirstRecord = 0x0000;
inline constexpr std::uint16_t kLastRecord = 0xFFFF;

// --- Reserve SDR Repository (Storage 22h) / Reserve SEL (Storage 42h) ---
Command reserve_sdr_repository();
Command reserve_sel();
std::variant<std::uint16_t, std::string> parse_reservation(ByteView data);

// --- Get SDR (Storage 23h): `count` bytes of a record from `offset` (FFh: all of it) ---
Command get_sdr(std::uint16_t reservation, std::uint16_t record_id, std::uint8_t offset,
                std::uint8_t count);
struct SdrChunk {
  std::uint16_t next_record_id = kLastRecord;
  Bytes bytes;
};
std::variant<SdrChunk, std::string> parse_sdr_chunk(ByteView data);

// --- Get Sensor Reading (Sensor 2Dh) ---
struct SensorReadingRaw {
  std::optional<std::uint8_t> raw;  // absent when the reading is unavailable or not scanned
  // Threshold comparison bits (threshold sensors): 0 lower non-critical, 1 lower critical,
  // 2 lower non-recoverable, 3 upper non-critical, 4 upper critical, 5 upper non-recoverable.
  std::uint8_t threshold_bits = 0;
  // The asserted states of a discrete sensor, offset 0-14 as bits.
  std::uint16_t discrete_bits = 0;
};
Command get_sensor_reading(std::uint8_t sensor_number);
std::variant<SensorReadingRaw, std::string> parse_sensor_reading(ByteView data);

// --- Get SEL Info (Storage 40h) ---
struct SelInfo {
  std::uint16_t entries = 0;
  std::uint32_t last_addition = 0;  // the most recent addition's timestamp
  std::uint32_t last_erase = 0;
};
Command get_sel_info();
std::variant<SelInfo, std::string> parse_sel_info(ByteView data);

// --- Get SEL Entry (Storage 43h): a whole 16-byte entry ---
Command get_sel_entry(std::uint16_t record_id);
struct SelChunk {
  std::uint16_t next_record_id = kLastRecord;
  Bytes entry;  // 16 bytes
};
std::variant<SelChunk, std::string> parse_sel_chunk(ByteView data);

// --- Get FRU Inventory Area Info (Storage 10h) / Read FRU Data (Storage 11h) ---
struct FruAreaInfo {
  std::uint16_t size = 0;
  bool by_words = false;  // offsets and counts in 16-bit words
};
Command get_fru_area_info(std::uint8_t fru_id);
std::variant<FruAreaInfo, std::string> parse_fru_area_info(ByteView data);
Command read_fru_data(std::uint8_t fru_id, std::uint16_t offset, std::uint8_t count);
std::variant<Bytes, std::string> parse_fru_data(ByteView data);

// --- Get System GUID (App 37h) ---
Command get_system_guid();
// The GUID as text (8-4-4-4-12 hex): IPMI sends its 16 bytes least significant first, so the
// text is the bytes in reverse. Nothing for a response shorter than 16 bytes.
std::optional<std::string> parse_system_guid(ByteView data);

}  // namespace ironhold::bmc::ipmi

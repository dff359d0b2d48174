#include "bmc/ipmi/fru.hpp"

#include <chrono>
#include <numeric>

#include "inventory/util/time.hpp"

namespace ironhold::bmc::ipmi {

namespace {

constexpr std::uint8_t kEndOfFields = 0xC1;

bool sums_to_zero(ByteView bytes) {
  return (std::accumulate(bytes.begin(), bytes.end(), 0u) & 0xFF) == 0;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\0')) text.pop_back();
  return text;
}

// 6-bit packed ASCII: four characters (ASCII 20h-5Fh less 20h) in three bytes, low bits first.
std::string six_bit_ascii(ByteView bytes) {
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (const std::uint8_t byte : bytes) {
    bits |= static_cast<std::uint32_t>(byte) << count;
    count += 8;
    while (count >= 6) {
      out += static_cast<char>((bits & 0x3F) + 0x20);
      bits >>= 6;
      count -= 6;
    }
  }
  return out;
}

// BCD plus: two digits a byte, high nibble first; 0-9, space, dash, period.
std::string bcd_plus(ByteView bytes) {
  static constexpr char kDigits[] = "0123456789 -.???";
  std::string out;
  for (const std::uint8_t byte : bytes) {
    out += kDigits[byte >> 4];
    out += kDigits[byte & 0x0F];
  }
  return out;
}

// Minutes since 1996-01-01 00:00 UTC, the FRU epoch.
std::optional<std::string> manufacture_time(std::uint32_t minutes) {
  if (minutes == 0) return std::nullopt;
  constexpr std::chrono::seconds kEpoch1996{820454400};
  return format_rfc3339(SystemTime(kEpoch1996 + std::chrono::minutes(minutes)));
}

// An info area's fields from `reader` until C1h; false if they run past the area.
bool read_fields(ByteReader& in, std::vector<std::string>& fields) {
  for (;;) {
    const auto type_length = in.u8();
    if (!type_length) return false;
    if (*type_length == kEndOfFields) return true;
    const auto bytes = in.take(*type_length & 0x3F);
    if (!bytes) return false;
    fields.push_back(decode_fru_field(*type_length, *bytes));
  }
}

std::string field_at(const std::vector<std::string>& fields, std::size_t i) {
  return i < fields.size() ? fields[i] : std::string();
}

std::vector<std::string> custom_from(const std::vector<std::string>& fields, std::size_t first) {
  std::vector<std::string> out;
  for (std::size_t i = first; i < fields.size(); ++i)
    if (!fields[i].empty()) out.push_back(fields[i]);
  return out;
}

// The area at `offset_units` (multiples of 8 bytes): its bytes, length from its second byte.
std::variant<ByteView, std::string> area_at(ByteView data, std::uint8_t offset_units,
                                            const char* name, FruData& fru) {
  const std::size_t offset = static_cast<std::size_t>(offset_units) * 8;
  if (offset + 2 > data.size())
    return std::string(name) + " area starts past the end of the FRU data";
  const std::size_t length = static_cast<std::size_t>(data[offset + 1]) * 8;
  if (length < 3 || offset + length > data.size())
    return std::string(name) + " area length runs past the end of the FRU data";
  const ByteView area = data.subspan(offset, length);
  if ((area[0] & 0x0F) != 0x01)
    fru.warnings.push_back(std::string(name) + " area format version is not 1");
  if (!sums_to_zero(area)) fru.warnings.push_back(std::string(name) + " area checksum is wrong");
  return area;
}

}  // namespace

std::string decode_fru_field(std::uint8_t type_length, ByteView bytes) {
  switch (type_length >> 6) {
    case 0:
      return to_hex_spaced(bytes);
    case 1:
      return trimmed(bcd_plus(bytes));
    case 2:
      return trimmed(six_bit_ascii(bytes));
    default:  // 8-bit ASCII + Latin-1 (language English)
      return trimmed(std::string(bytes.begin(), bytes.end()));
  }
}

std::variant<FruData, std::string> parse_fru(ByteView data) {
  if (data.size() < 8) return std::string("FRU data shorter than the common header");
  const ByteView header = data.first(8);
  if ((header[0] & 0x0F) != 0x01)
    return std::string("FRU common header format version is not 1 (not FRU data)");
  if (!sums_to_zero(header)) return std::string("FRU common header checksum is wrong");
  FruData fru;

  if (header[2] != 0) {
    auto area = area_at(data, header[2], "chassis", fru);
    if (auto* error = std::get_if<std::string>(&area)) return *error;
    ByteReader in(std::get<ByteView>(area));
    in.take(2);
    FruChassis chassis;
    chassis.type = in.u8().value_or(0);
    std::vector<std::string> fields;
    if (!read_fields(in, fields)) return std::string("chassis area fields run past the area");
    chassis.part_number = field_at(fields, 0);
    chassis.serial = field_at(fields, 1);
    chassis.custom = custom_from(fields, 2);
    fru.chassis = std::move(chassis);
  }
  if (header[3] != 0) {
    auto area = area_at(data, header[3], "board", fru);
    if (auto* error = std::get_if<std::string>(&area)) return *error;
    ByteReader in(std::get<ByteView>(area));
    in.take(3);  // version, length, language
    FruBoard board;
    const auto date = in.take(3);
    if (!date) return std::string("board area too short for its manufacturing date");
    board.manufactured = manufacture_time(
        static_cast<std::uint32_t>((*date)[0] | ((*date)[1] << 8) | ((*date)[2] << 16)));
    std::vector<std::string> fields;
    if (!read_fields(in, fields)) return std::string("board area fields run past the area");
    board.manufacturer = field_at(fields, 0);
    board.product_name = field_at(fields, 1);
    board.serial = field_at(fields, 2);
    board.part_number = field_at(fields, 3);
    board.fru_file_id = field_at(fields, 4);
    board.custom = custom_from(fields, 5);
    fru.board = std::move(board);
  }
  if (header[4] != 0) {
    auto area = area_at(data, header[4], "product", fru);
    if (auto* error = std::get_if<std::string>(&area)) return *error;
    ByteReader in(std::get<ByteView>(area));
    in.take(3);  // version, length, language
    FruProduct product;
    std::vector<std::string> fields;
    if (!read_fields(in, fields)) return std::string("product area fields run past the area");
    product.manufacturer = field_at(fields, 0);
    product.name = field_at(fields, 1);
    product.part_number = field_at(fields, 2);
    product.version = field_at(fields, 3);
    product.serial = field_at(fields, 4);
    product.asset_tag = field_at(fields, 5);
    product.fru_file_id = field_at(fields, 6);
    product.custom = custom_from(fields, 7);
    fru.product = std::move(product);
  }
  return fru;
}

}  // namespace ironhold::bmc::ipmi

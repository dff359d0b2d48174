#pragma once
// FRU inventory data (IPMI Platform Management FRU Information Storage Definition v1.0): the
// common header and the chassis, board and product info areas, with their type/length-coded
// fields (binary, BCD plus, 6-bit packed ASCII, 8-bit ASCII). Real FRUs are often slightly
// wrong: an area with a bad checksum is still read, with a warning; only an unreadable common
// header or an area running past the data is an error.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bmc/ipmi/bytes.hpp"

namespace ironhold::bmc::ipmi {

struct FruChassis {
  std::uint8_t type = 0;  // SMBIOS chassis type (0x17 rack mount, ...)
  std::string part_number, serial;
  std::vector<std::string> custom;
};

struct FruBoard {
  std::optional<std::string> manufactured;  // RFC 3339 UTC; absent when unspecified (0)
  std::string manufacturer, product_name, serial, part_number, fru_file_id;
  std::vector<std::string> custom;
};

struct FruProduct {
  std::string manufacturer, name, part_number, version, serial, asset_tag, fru_file_id;
  std::vector<std::string> custom;
};

struct FruData {
  std::optional<FruChassis> chassis;
  std::optional<FruBoard> board;
  std::optional<FruProduct> product;
  std::vector<std::string> warnings;  // "board area checksum is wrong", ...
};

std::variant<FruData, std::string> parse_fru(ByteView data);

// One type/length-coded field's value as text (binary as hex); exposed for tests.
std::string decode_fru_field(std::uint8_t type_length, ByteView bytes);

}  // namespace ironhold::bmc::ipmi

#pragma once
// FRU device 0 of a simulated GPU server (Platform Management FRU Information Storage Definition
// v1.0): the common header and the chassis, board and product info areas, each field an 8-bit
// ASCII type/length byte and its text, each area padded to 8 bytes and checksummed. Serial
// numbers carry the BMC's index, so every simulated server is a different one.
#include <string>

#include "bmc/ipmi/bytes.hpp"

namespace ironhold::sim::ipmi {

struct FruIdentity {
  std::string chassis_serial, board_serial, product_serial, asset_tag;
};

FruIdentity fru_identity(unsigned index);
bmc::ipmi::Bytes build_fru_image(const FruIdentity& identity);

// What build_fru_image writes besides the serials, for tests and listings.
inline constexpr const char* kFruManufacturer = "Ironhold Simulated";
inline constexpr const char* kFruProductName = "IH-G8 GPU Server";
inline constexpr const char* kFruBoardName = "IH-G8 Mainboard";
inline constexpr const char* kFruProductPart = "IH-G8-8X";

}  // namespace ironhold::sim::ipmi

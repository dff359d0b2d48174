#include "sim/ipmi/fru_image.hpp"

#include <cstdio>

#include "bmc/ipmi/lan_message.hpp"

namespace ironhold::sim::ipmi {

namespace {

using bmc::ipmi::Bytes;

// 2025-01-15 00:00 UTC in minutes since 1996-01-01 00:00 UTC (the FRU epoch).
constexpr std::uint32_t kManufactured = 10607u * 24 * 60;

void put_field(Bytes& out, const std::string& text) {
  const std::size_t n = std::min<std::size_t>(text.size(), 63);
  out.push_back(static_cast<std::uint8_t>(0xC0 | n));
  out.insert(out.end(), text.begin(), text.begin() + static_cast<std::ptrdiff_t>(n));
}

// Closes an area begun with its version and length bytes: end marker, zero pad to a multiple of
// eight with the checksum as the last byte, length in eight-byte units.
void finish_area(Bytes& area) {
  area.push_back(0xC1);
  while ((area.size() + 1) % 8 != 0) area.push_back(0x00);
  area[1] = static_cast<std::uint8_t>((area.size() + 1) / 8);
  area.push_back(bmc::ipmi::ipmi_checksum(area));
}

std::string numbered(const char* prefix, unsigned index) {
  char text[32];
  std::snprintf(text, sizeof text, "%s%06u", prefix, index);
  return text;
}

}  // namespace

FruIdentity fru_identity(unsigned index) {
  return {numbered("IHC", index), numbered("IHB", index), numbered("IHP", index),
          numbered("ASSET-", index)};
}

Bytes build_fru_image(const FruIdentity& id) {
  Bytes chassis{0x01, 0x00, 0x17};  // rack mount chassis
  put_field(chassis, "IH-G8-CHASSIS");
  put_field(chassis, id.chassis_serial);
  finish_area(chassis);

  Bytes board{0x01, 0x00, 0x00};  // English
  board.push_back(static_cast<std::uint8_t>(kManufactured));
  board.push_back(static_cast<std::uint8_t>(kManufactured >> 8));
  board.push_back(static_cast<std::uint8_t>(kManufactured >> 16));
  put_field(board, kFruManufacturer);
  put_field(board, kFruBoardName);
  put_field(board, id.board_serial);
  put_field(board, "IH-MB-0100");
  put_field(board, "");  // FRU file ID
  finish_area(board);

  Bytes product{0x01, 0x00, 0x00};
  put_field(product, kFruManufacturer);
  put_field(product, kFruProductName);
  put_field(product, kFruProductPart);
  put_field(product, "1.0");
  put_field(product, id.product_serial);
  put_field(product, id.asset_tag);
  put_field(product, "");
  finish_area(product);

  Bytes image{0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  image[2] = 1;  // chassis area right after the 8-byte header
  image[3] = static_cast<std::uint8_t>(1 + chassis.size() / 8);
  image[4] = static_cast<std::uint8_t>(image[3] + board.size() / 8);
  image.push_back(bmc::ipmi::ipmi_checksum(image));
  bmc::ipmi::put(image, chassis);
  bmc::ipmi::put(image, board);
  bmc::ipmi::put(image, product);
  return image;
}

}  // namespace ironhold::sim::ipmi

#include "bmc/ipmi/bytes.hpp"

namespace ironhold::bmc::ipmi {

namespace {
constexpr char kHex[] = "0123456789abcdef";
}  // namespace

std::string hex_byte(std::uint8_t byte) {
  return {kHex[byte >> 4], kHex[byte & 0x0F]};
}

std::string to_hex_spaced(ByteView bytes) {
  std::string out;
  out.reserve(bytes.size() * 3);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i > 0) out += ' ';
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 0x0F];
  }
  return out;
}

}  // namespace ironhold::bmc::ipmi

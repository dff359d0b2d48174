#include "bmc/ipmi/lan_message.hpp"

#include <numeric>

namespace ironhold::bmc::ipmi {

std::uint8_t ipmi_checksum(ByteView bytes) {
  const unsigned sum = std::accumulate(bytes.begin(), bytes.end(), 0u);
  return static_cast<std::uint8_t>(0x100 - (sum & 0xFF));
}

Bytes encode_lan_message(const LanMessage& m) {
  Bytes out;
  out.reserve(7 + m.data.size());
  out.push_back(m.target_address);
  out.push_back(static_cast<std::uint8_t>((m.netfn << 2) | (m.target_lun & 0x03)));
  out.push_back(ipmi_checksum(ByteView(out).first(2)));
  out.push_back(m.source_address);
  out.push_back(static_cast<std::uint8_t>((m.sequence << 2) | (m.source_lun & 0x03)));
  out.push_back(m.command);
  put(out, m.data);
  out.push_back(ipmi_checksum(ByteView(out).subspan(3)));
  return out;
}

std::variant<LanMessage, std::string> decode_lan_message(ByteView bytes) {
  if (bytes.size() < 7)
    return "IPMI message of " + std::to_string(bytes.size()) + " bytes, shorter than a header";
  const auto sums_to_zero = [](ByteView covered) {
    return (std::accumulate(covered.begin(), covered.end(), 0u) & 0xFF) == 0;
  };
  if (!sums_to_zero(bytes.first(3))) return std::string("IPMI message header checksum is wrong");
  if (!sums_to_zero(bytes.subspan(3))) return std::string("IPMI message data checksum is wrong");
  LanMessage m;
  m.target_address = bytes[0];
  m.netfn = static_cast<std::uint8_t>(bytes[1] >> 2);
  m.target_lun = bytes[1] & 0x03;
  m.source_address = bytes[3];
  m.sequence = static_cast<std::uint8_t>(bytes[4] >> 2);
  m.source_lun = bytes[4] & 0x03;
  m.command = bytes[5];
  m.data.assign(bytes.begin() + 6, bytes.end() - 1);
  return m;
}

}  // namespace ironhold::bmc::ipmi

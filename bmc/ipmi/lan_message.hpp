#pragma once
// The IPMI LAN message inside a session payload (IPMI v2.0 section 13.8):
//   rsAddr | netFn<<2 | rsLUN | checksum1 | rqAddr | rqSeq<<2 | rqLUN | cmd | data... | checksum2
// For a response the two addresses trade places and data starts with the completion code.
// Checksums are two's complements: the covered bytes plus the checksum sum to zero.
#include <cstdint>
#include <string>
#include <variant>

#include "bmc/ipmi/bytes.hpp"

namespace ironhold::bmc::ipmi {

inline constexpr std::uint8_t kBmcAddress = 0x20;      // the BMC's responder address
inline constexpr std::uint8_t kConsoleAddress = 0x81;  // a remote console's software ID

struct LanMessage {
  std::uint8_t target_address = kBmcAddress;  // rsAddr in a request, rqAddr in a response
  std::uint8_t netfn = 0;                     // even for requests, odd for responses
  std::uint8_t target_lun = 0;
  std::uint8_t source_address = kConsoleAddress;
  std::uint8_t sequence = 0;  // rqSeq, 6 bits: what matches a response to its request
  std::uint8_t source_lun = 0;
  std::uint8_t command = 0;
  Bytes data;  // for a response: the completion code, then the response data
};

Bytes encode_lan_message(const LanMessage& message);
// A message as received; the error says what is wrong with it (short, bad checksum).
std::variant<LanMessage, std::string> decode_lan_message(ByteView bytes);

// Two's complement checksum of `bytes`.
std::uint8_t ipmi_checksum(ByteView bytes);

}  // namespace ironhold::bmc::ipmi

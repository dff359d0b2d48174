#pragma once
// Serial-over-LAN payloads (payload type 01h inside an RMCP+ session, IPMI v2.0 section 15.9):
//   byte 0  packet sequence number, 1-15 (0: the packet only acknowledges)
//   byte 1  the sequence number this packet acknowledges or refuses (0: none)
//   byte 2  how many characters of that packet were accepted
//   byte 3  operation (console to BMC) or status (BMC to console), bits below
//   byte 4- characters
// The same layout travels both ways; only the meaning of byte 3 differs.
#include <cstdint>
#include <optional>

#include "bmc/ipmi/bytes.hpp"

namespace ironhold::bmc::ipmi {

inline constexpr std::uint8_t kPayloadTypeSol = 0x01;

// Byte 3, both directions: the packet named in byte 1 was refused, send it again later.
inline constexpr std::uint8_t kSolNack = 0x40;
// Byte 3, console to BMC (table 15-2).
inline constexpr std::uint8_t kSolRing = 0x20;
inline constexpr std::uint8_t kSolGenerateBreak = 0x10;
inline constexpr std::uint8_t kSolCtsPause = 0x08;
inline constexpr std::uint8_t kSolDropDcdDsr = 0x04;
inline constexpr std::uint8_t kSolFlushInbound = 0x02;
inline constexpr std::uint8_t kSolFlushOutbound = 0x01;
// Byte 3, BMC to console (table 15-3).
inline constexpr std::uint8_t kSolTransferUnavailable = 0x20;
inline constexpr std::uint8_t kSolDeactivating = 0x10;
inline constexpr std::uint8_t kSolTransmitOverrun = 0x08;
inline constexpr std::uint8_t kSolBreakDetected = 0x04;

struct SolPacket {
  std::uint8_t sequence = 0;      // 0: no characters, only the acknowledgement
  std::uint8_t ack_sequence = 0;  // 0: acknowledges nothing
  std::uint8_t accepted = 0;
  std::uint8_t status = 0;
  Bytes data;
};

Bytes encode_sol(const SolPacket& packet);
// Nothing for fewer than four bytes or a sequence number past 15 (not a SOL packet).
std::optional<SolPacket> decode_sol(ByteView payload);

}  // namespace ironhold::bmc::ipmi

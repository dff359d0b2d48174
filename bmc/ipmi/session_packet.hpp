#pragma once
// RMCP packets as BMCs and consoles put them on UDP port 623 (IPMI v2.0 sections 13.6, 13.28):
//   RMCP header        06 00 FF 07 (version 1.0, no RMCP ACK, class IPMI)
//   IPMI v1.5 session  auth type | sequence | session ID | [16-byte auth code] | length | message
//   IPMI v2.0 (RMCP+)  06 | payload type (bit 7 encrypted, bit 6 authenticated) | session ID |
//                      sequence | payload length (16 bits) | payload | integrity trailer
// The integrity trailer of an authenticated packet pads with FFh so that everything from the
// auth type byte to the trailer's "next header" (07h) is a multiple of four bytes, then carries
// an AuthCode: the K1 HMAC of that span, truncated. An encrypted payload is a 16-byte IV and the
// AES-CBC-128 ciphertext of the payload padded with 01h 02h ... n and the pad length n.
#include <cstdint>
#include <string>
#include <variant>

#include "bmc/ipmi/bytes.hpp"
#include "bmc/ipmi/cipher_suite.hpp"
#include "bmc/ipmi/rakp.hpp"

namespace ironhold::bmc::ipmi {

enum class PayloadType : std::uint8_t {
  ipmi_message = 0x00,
  sol = 0x01,  // Serial-over-LAN (sol_packet.hpp)
  open_session_request = 0x10,
  open_session_response = 0x11,
  rakp1 = 0x12,
  rakp2 = 0x13,
  rakp3 = 0x14,
  rakp4 = 0x15,
};

// What a session adds to packets once RAKP is done; absent before (packets in the clear).
struct SessionSecurity {
  CipherSuite suite;
  SessionKeys keys;
};

struct SessionPacket {
  bool rmcp_plus = true;  // false: an IPMI v1.5 session wrapper (Get Channel Auth Capabilities)
  PayloadType type = PayloadType::ipmi_message;
  std::uint32_t session_id = 0;
  std::uint32_t sequence = 0;
  bool encrypted = false;
  bool authenticated = false;
  Bytes payload;  // decrypted
};

// The packet on the wire. With `security`, the payload is encrypted and signed as its suite
// says (using `iv`, 16 random bytes per packet, when it encrypts); without, it goes in the clear.
Bytes seal_packet(PayloadType type, std::uint32_t session_id, std::uint32_t sequence,
                  ByteView payload, const SessionSecurity* security, ByteView iv);
// An IPMI v1.5 wrapper without authentication, the only one the driver sends (before a session).
Bytes seal_v15_packet(ByteView message);

// Reads a packet: checks the AuthCode of an authenticated one and decrypts an encrypted one,
// which both need `security`. The error names what is wrong (a forged or damaged packet).
std::variant<SessionPacket, std::string> open_packet(ByteView raw, const SessionSecurity* security);

}  // namespace ironhold::bmc::ipmi

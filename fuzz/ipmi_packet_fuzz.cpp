// libFuzzer target: whatever arrives on UDP port 623 through the RMCP/RMCP+ packet reader and the
// IPMI message decoder, outside a session and inside a suite-3 and a suite-17 session with fixed
// keys. Nothing may crash, read out of bounds or loop; a packet that opens must seal again to
// one that opens to the same payload.
#include <cstddef>
#include <cstdint>

#include "bmc/ipmi/lan_message.hpp"
#include "bmc/ipmi/rakp.hpp"
#include "bmc/ipmi/session_packet.hpp"

using namespace ironhold::bmc::ipmi;

namespace {

SessionSecurity security_for(std::uint8_t suite_id) {
  RakpExchange x;
  x.suite = *cipher_suite(suite_id);
  x.console_random = Bytes(16, 0x11);
  x.bmc_random = Bytes(16, 0x22);
  x.bmc_guid = Bytes(16, 0x33);
  x.role = 0x14;
  x.user = "admin";
  x.password = "password";
  return SessionSecurity{x.suite, derive_keys(x)};
}

void exercise(ByteView raw, const SessionSecurity* security) {
  auto opened = open_packet(raw, security);
  auto* packet = std::get_if<SessionPacket>(&opened);
  if (packet == nullptr) return;
  (void)decode_lan_message(packet->payload);
  if (!packet->rmcp_plus) return;
  const Bytes iv(16, 0x5C);
  const Bytes again = seal_packet(packet->type, packet->session_id, packet->sequence,
                                  packet->payload, packet->authenticated ? security : nullptr, iv);
  auto reopened = open_packet(again, packet->authenticated ? security : nullptr);
  auto* round_trip = std::get_if<SessionPacket>(&reopened);
  if (round_trip == nullptr || round_trip->payload != packet->payload) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const SessionSecurity suite3 = security_for(3);
  static const SessionSecurity suite17 = security_for(17);
  const ByteView raw(data, size);
  exercise(raw, nullptr);
  exercise(raw, &suite3);
  exercise(raw, &suite17);
  return 0;
}

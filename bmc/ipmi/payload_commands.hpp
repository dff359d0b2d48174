#pragma once
// Payload activation (IPMI v2.0 section 24): Activate Payload (App 48h) starts a payload such as
// Serial-over-LAN inside the session that sends it; Deactivate Payload (App 49h) ends it, from
// that session or, for a stale activation, from another one of the same user.
#include <cstdint>
#include <string>
#include <variant>

#include "bmc/ipmi/commands.hpp"

namespace ironhold::bmc::ipmi {

inline constexpr std::uint8_t kCmdActivatePayload = 0x48;
inline constexpr std::uint8_t kCmdDeactivatePayload = 0x49;

// Activate Payload's completion codes (table 24-2).
inline constexpr std::uint8_t kCcPayloadAlreadyActive = 0x80;
inline constexpr std::uint8_t kCcPayloadTypeDisabled = 0x81;
inline constexpr std::uint8_t kCcPayloadActivationLimit = 0x82;
inline constexpr std::uint8_t kCcPayloadNeedsEncryption = 0x83;
inline constexpr std::uint8_t kCcPayloadNeedsNoEncryption = 0x84;
// Deactivate Payload: "payload already deactivated".
inline constexpr std::uint8_t kCcPayloadNotActive = 0x80;

// Serial-over-LAN, instance 1, with the session's encryption and authentication; serial alerts
// deferred while it is active (not lost).
Command activate_sol(bool encrypted, bool authenticated);
Command deactivate_sol();

struct PayloadActivation {
  std::uint16_t inbound_size = 0;   // the most the BMC takes in one payload from us
  std::uint16_t outbound_size = 0;  // the most it sends in one
  std::uint16_t port = 0;           // the UDP port the payload travels on
};
std::variant<PayloadActivation, std::string> parse_payload_activation(ByteView data);

// What an Activate Payload completion code means for a person.
std::string activation_refusal_text(std::uint8_t completion_code);

}  // namespace ironhold::bmc::ipmi

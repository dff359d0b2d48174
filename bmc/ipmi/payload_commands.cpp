#include "bmc/ipmi/payload_commands.hpp"

#include "bmc/ipmi/sol_packet.hpp"

namespace ironhold::bmc::ipmi {

namespace {
constexpr std::uint8_t kSolInstance = 1;
constexpr std::uint8_t kActivateEncrypted = 0x80;
constexpr std::uint8_t kActivateAuthenticated = 0x40;
constexpr std::uint8_t kSerialAlertsDeferred = 0x10;
}  // namespace

Command activate_sol(bool encrypted, bool authenticated) {
  std::uint8_t aux = kSerialAlertsDeferred;
  if (encrypted) aux |= kActivateEncrypted;
  if (authenticated) aux |= kActivateAuthenticated;
  return {kNetFnApp, kCmdActivatePayload, {kPayloadTypeSol, kSolInstance, aux, 0, 0, 0}};
}

Command deactivate_sol() {
  return {kNetFnApp, kCmdDeactivatePayload, {kPayloadTypeSol, kSolInstance, 0, 0, 0, 0}};
}

std::variant<PayloadActivation, std::string> parse_payload_activation(ByteView data) {
  // Auxiliary data (4), inbound size (2), outbound size (2), port (2), VLAN (2).
  if (data.size() < 12) return response_too_short("Activate Payload", data.size(), 12);
  PayloadActivation out;
  out.inbound_size = static_cast<std::uint16_t>(data[4] | data[5] << 8);
  out.outbound_size = static_cast<std::uint16_t>(data[6] | data[7] << 8);
  out.port = static_cast<std::uint16_t>(data[8] | data[9] << 8);
  if (out.inbound_size < 5)
    return "Activate Payload: the BMC takes " + std::to_string(out.inbound_size) +
           "-byte payloads, too small for a SOL packet";
  return out;
}

std::string activation_refusal_text(std::uint8_t code) {
  switch (code) {
    case kCcPayloadAlreadyActive:
      return "the serial console is already active in another session";
    case kCcPayloadTypeDisabled:
      return "Serial-over-LAN is disabled on this BMC (SOL configuration parameter 1)";
    case kCcPayloadActivationLimit:
      return "the BMC allows no more serial console sessions";
    case kCcPayloadNeedsEncryption:
      return "the BMC only allows the serial console with encryption (use a cipher suite with "
             "AES, such as 3 or 17)";
    case kCcPayloadNeedsNoEncryption:
      return "the BMC only allows the serial console without encryption";
    default:
      return "Activate Payload failed: " + completion_code_text(code);
  }
}

}  // namespace ironhold::bmc::ipmi

#include "sim/ipmi/sol_payload.hpp"

#include "bmc/ipmi/payload_commands.hpp"
#include "bmc/ipmi/sol_packet.hpp"
#include "inventory/crypto/primitives.hpp"
#include "sim/ipmi/commands.hpp"

namespace ironhold::sim::ipmi {

namespace {

using bmc::ipmi::Bytes;

// The largest payload either way: 4 header bytes and 251 characters, what ipmi_sim offers too.
constexpr std::uint16_t kMaxSolPayload = 255;
constexpr std::uint8_t kSolInstance = 1;

Bytes seal_sol(Session& s, const bmc::ipmi::SolPacket& packet) {
  std::uint8_t iv[16];
  crypto::random_bytes(iv);
  return bmc::ipmi::seal_packet(bmc::ipmi::PayloadType::sol, s.console_id, s.next_outbound(),
                                bmc::ipmi::encode_sol(packet), &s.security, iv);
}

void release(BmcModel& bmc, Session& s) {
  s.sol.reset();
  s.sol_deactivating = false;
  if (bmc.sol_owner == s.bmc_id) bmc.sol_owner = 0;
}

Bytes activate(BmcModel& bmc, SessionTable& sessions, Session& s, bmc::ipmi::ByteView data,
               Clock::time_point now) {
  if (data.size() < 6) return {kCcLengthInvalid};
  if ((data[0] & 0x3F) != bmc::ipmi::kPayloadTypeSol || data[1] != kSolInstance)
    return {kCcInvalidData};
  if (s.privilege < kPrivUser) return {kCcInsufficientPrivilege};
  if (sol_session(bmc, sessions)) return {bmc::ipmi::kCcPayloadAlreadyActive};
  // A console must protect the payload as well as its session does.
  const bool session_encrypts =
      s.suite.confidentiality != bmc::ipmi::ConfidentialityAlgorithm::none;
  if (session_encrypts && !(data[2] & 0x80)) return {bmc::ipmi::kCcPayloadNeedsEncryption};
  bmc::ipmi::SolTransferOptions options;
  options.max_chunk = kMaxSolPayload - 4;
  s.sol = std::make_unique<bmc::ipmi::SolTransfer>(options);
  s.sol_deactivating = false;
  bmc.sol_owner = s.bmc_id;
  // Output printed while nobody was connected is gone, as on a real serial port.
  bmc.console().take_output(now);
  Bytes out{kCcOk, 0, 0, 0, 0};
  bmc::ipmi::put_u16(out, kMaxSolPayload);  // inbound
  bmc::ipmi::put_u16(out, kMaxSolPayload);  // outbound
  bmc::ipmi::put_u16(out, bmc.udp_port);
  bmc::ipmi::put_u16(out, 0xFFFF);  // no VLAN
  return out;
}

Bytes deactivate(BmcModel& bmc, SessionTable& sessions, Session& s, bmc::ipmi::ByteView data) {
  if (data.size() < 6) return {kCcLengthInvalid};
  if ((data[0] & 0x3F) != bmc::ipmi::kPayloadTypeSol || data[1] != kSolInstance)
    return {kCcInvalidData};
  Session* owner = sol_session(bmc, sessions);
  if (!owner) return {bmc::ipmi::kCcPayloadNotActive};
  if (owner != &s) {
    // Another session's console: it hears so in one last packet (sol_pump).
    if (s.privilege < kPrivAdministrator && s.user != owner->user)
      return {kCcInsufficientPrivilege};
    owner->sol_deactivating = true;
    bmc.sol_owner = 0;
    return {kCcOk};
  }
  release(bmc, s);
  return {kCcOk};
}

}  // namespace

Session* sol_session(BmcModel& bmc, SessionTable& sessions) {
  if (bmc.sol_owner == 0) return nullptr;
  Session* s = sessions.find(bmc.sol_owner);
  if (!s || !s->sol || s->sol_deactivating) {
    bmc.sol_owner = 0;
    return nullptr;
  }
  return s;
}

std::optional<Bytes> payload_command(BmcModel& bmc, SessionTable& sessions, Session& s,
                                     const bmc::ipmi::LanMessage& request, Clock::time_point now) {
  if (request.netfn != bmc::ipmi::kNetFnApp) return std::nullopt;
  if (request.command == bmc::ipmi::kCmdActivatePayload)
    return activate(bmc, sessions, s, request.data, now);
  if (request.command == bmc::ipmi::kCmdDeactivatePayload)
    return deactivate(bmc, sessions, s, request.data);
  return std::nullopt;
}

std::optional<Bytes> sol_packet_in(BmcModel& bmc, Session& s,
                                   const bmc::ipmi::SessionPacket& packet, Clock::time_point now) {
  if (!s.sol || s.sol_deactivating) return std::nullopt;  // no payload: dropped
  const auto sol = bmc::ipmi::decode_sol(packet.payload);
  if (!sol) return std::nullopt;
  auto received = s.sol->receive(*sol, now);
  if (!received.characters.empty())
    bmc.console().type(std::string_view(reinterpret_cast<const char*>(received.characters.data()),
                                        received.characters.size()),
                       now);
  // The acknowledgement at once; characters and retries go out with the pump.
  if (auto ack = s.sol->next(now); ack && ack->sequence == 0) return seal_sol(s, *ack);
  return std::nullopt;
}

std::vector<OutgoingDatagram> sol_pump(BmcModel& bmc, SessionTable& sessions,
                                       Clock::time_point now) {
  std::vector<OutgoingDatagram> out;
  for (const auto& session : sessions.all()) {
    Session& s = *session;
    if (!s.sol) continue;
    if (s.sol_deactivating) {
      bmc::ipmi::SolPacket bye;
      bye.status = bmc::ipmi::kSolDeactivating;
      out.push_back({s.peer, seal_sol(s, bye)});
      release(bmc, s);
      continue;
    }
    const std::string output = bmc.console().take_output(now);
    // A console that cannot keep up loses characters, as a serial port's overrun does.
    if (!output.empty())
      s.sol->queue(
          bmc::ipmi::ByteView(reinterpret_cast<const std::uint8_t*>(output.data()), output.size()));
    while (auto packet = s.sol->next(now)) out.push_back({s.peer, seal_sol(s, *packet)});
    if (s.sol->peer_gone()) release(bmc, s);  // the console went away without a word
  }
  return out;
}

}  // namespace ironhold::sim::ipmi

#include "sim/ipmi/rmcp_handler.hpp"

#include "bmc/ipmi/commands.hpp"
#include "bmc/ipmi/lan_message.hpp"
#include "bmc/ipmi/session_packet.hpp"
#include "inventory/crypto/primitives.hpp"
#include "sim/ipmi/commands.hpp"
#include "sim/ipmi/handshake.hpp"
#include "sim/ipmi/sol_payload.hpp"

namespace ironhold::sim::ipmi {

namespace {

using bmc::ipmi::Bytes;
using bmc::ipmi::ByteView;
using bmc::ipmi::LanMessage;
using bmc::ipmi::PayloadType;

constexpr std::uint8_t kClassAsf = 0x06, kClassIpmi = 0x07;
constexpr std::uint8_t kAuthRmcpPlus = 0x06, kAuthNone = 0x00;
constexpr std::uint8_t kSetSessionPrivilege = 0x3B, kCloseSession = 0x3C;

std::uint32_t le32_at(ByteView data, std::size_t at) {
  return static_cast<std::uint32_t>(data[at] | (data[at + 1] << 8) | (data[at + 2] << 16) |
                                    (std::uint32_t{data[at + 3]} << 24));
}

// ASF presence ping -> pong (DSP0136 section 3.2.4.3): "IPMI supported" and nothing else.
std::optional<Bytes> asf_pong(ByteView in) {
  if (in.size() < 12 || le32_at(in, 4) != 0xBE110000 || in[8] != 0x80) return std::nullopt;
  return Bytes{0x06, 0x00, 0xFF, 0x06, 0x00, 0x00, 0x11, 0xBE, 0x40, in[9], 0x00, 0x10, 0x00, 0x00,
               0x11, 0xBE, 0x00, 0x00, 0x00, 0x00, 0x81, 0x00, 0x00, 0x00,  0x00, 0x00, 0x00, 0x00};
}

LanMessage response_to(const LanMessage& request, Bytes data) {
  LanMessage out;
  out.target_address = request.source_address;
  out.netfn = static_cast<std::uint8_t>(request.netfn | 0x01);
  out.target_lun = request.source_lun;
  out.source_address = request.target_address;
  out.sequence = request.sequence;
  out.source_lun = request.target_lun;
  out.command = request.command;
  out.data = std::move(data);
  return out;
}

// A request outside any session: only the discovery commands get an answer.
std::optional<Bytes> sessionless(BmcModel& bmc, ByteView payload, Clock::time_point now,
                                 bool rmcp_plus) {
  const auto decoded = bmc::ipmi::decode_lan_message(payload);
  const auto* request = std::get_if<LanMessage>(&decoded);
  if (!request || (request->netfn & 0x01)) return std::nullopt;
  CommandContext ctx{bmc, now};
  auto data = dispatch_command(ctx, kPrivNone, request->netfn, request->command, request->data);
  if (!data) return std::nullopt;
  const Bytes message = bmc::ipmi::encode_lan_message(response_to(*request, std::move(*data)));
  if (!rmcp_plus) return bmc::ipmi::seal_v15_packet(message);
  return bmc::ipmi::seal_packet(PayloadType::ipmi_message, 0, 0, message, nullptr, {});
}

Bytes seal_handshake(PayloadType type, const Bytes& payload) {
  return bmc::ipmi::seal_packet(type, 0, 0, payload, nullptr, {});
}

std::optional<Bytes> handshake(BmcModel& bmc, SessionTable& sessions,
                               const bmc::ipmi::SessionPacket& packet, const std::string& peer,
                               Clock::time_point now) {
  HandshakeContext ctx{bmc, sessions, now, peer};
  std::optional<Bytes> reply;
  switch (packet.type) {
    case PayloadType::open_session_request:
      if ((reply = open_session(ctx, packet.payload)))
        return seal_handshake(PayloadType::open_session_response, *reply);
      break;
    case PayloadType::rakp1:
      if ((reply = rakp1(ctx, packet.payload))) return seal_handshake(PayloadType::rakp2, *reply);
      break;
    case PayloadType::rakp3:
      if ((reply = rakp3(ctx, packet.payload))) return seal_handshake(PayloadType::rakp4, *reply);
      break;
    case PayloadType::ipmi_message:
      return sessionless(bmc, packet.payload, now, true);
    default:
      break;
  }
  return std::nullopt;
}

struct SessionOutcome {
  Bytes data;
  bool close_this = false;
};

SessionOutcome set_session_privilege(Session& s, ByteView data) {
  if (data.size() != 1) return {{kCcLengthInvalid}};
  const std::uint8_t level = data[0] & 0x0F;
  if (level > kPrivAdministrator) return {{kCcInvalidData}};
  if (level != 0) {
    if (level > s.max_privilege) return {{0x81}};  // exceeds the user's or session's limit
    s.privilege = level;
  }
  return {{kCcOk, s.privilege}};
}

SessionOutcome close_session(BmcModel& bmc, SessionTable& sessions, Session& s, ByteView data) {
  if (data.size() < 4) return {{kCcLengthInvalid}};
  const std::uint32_t id = le32_at(data, 0);
  if (id == s.bmc_id) return {{kCcOk}, true};
  if (id == 0) return {{0x88}};  // session handles are not kept
  if (s.privilege < kPrivAdministrator) return {{kCcInsufficientPrivilege}};
  if (!sessions.close(id)) return {{0x87}};  // invalid session ID
  ++bmc.counters.sessions_closed;
  return {{kCcOk}};
}

std::optional<Bytes> in_session(BmcModel& bmc, SessionTable& sessions, Session& s, ByteView raw,
                                Clock::time_point now) {
  const auto opened = bmc::ipmi::open_packet(raw, &s.security);
  const auto* packet = std::get_if<bmc::ipmi::SessionPacket>(&opened);
  if (!packet || !packet->authenticated || !packet->encrypted) return std::nullopt;
  if (packet->type == PayloadType::sol) {
    // Keystrokes and acknowledgements share the session's sequence numbers; a repeat is dropped
    // here, and the SOL layer re-acknowledges a repeated SOL packet by its own number.
    if (s.inbound.check(packet->sequence) != InboundWindow::Verdict::accept) return std::nullopt;
    s.last_activity = now;
    return sol_packet_in(bmc, s, *packet, now);
  }
  if (packet->type != PayloadType::ipmi_message) return std::nullopt;
  switch (s.inbound.check(packet->sequence)) {
    case InboundWindow::Verdict::accept:
      break;
    case InboundWindow::Verdict::duplicate:
      // The console did not get our answer and sent the request again: the same answer.
      if (packet->sequence == s.last_sequence && !s.last_reply.empty()) return s.last_reply;
      return std::nullopt;
    case InboundWindow::Verdict::reject:
      return std::nullopt;
  }
  const auto decoded = bmc::ipmi::decode_lan_message(packet->payload);
  const auto* request = std::get_if<LanMessage>(&decoded);
  if (!request || (request->netfn & 0x01)) return std::nullopt;
  s.last_activity = now;

  SessionOutcome outcome;
  CommandContext ctx{bmc, now};
  if (auto payload = payload_command(bmc, sessions, s, *request, now)) {
    outcome.data = std::move(*payload);
  } else if (request->netfn == bmc::ipmi::kNetFnApp && request->command == kSetSessionPrivilege) {
    outcome = set_session_privilege(s, request->data);
  } else if (request->netfn == bmc::ipmi::kNetFnApp && request->command == kCloseSession) {
    outcome = close_session(bmc, sessions, s, request->data);
  } else {
    outcome.data =
        dispatch_command(ctx, s.privilege, request->netfn, request->command, request->data)
            .value_or(Bytes{kCcInvalidCommand});
  }
  ++bmc.counters.commands;
  const Bytes message =
      bmc::ipmi::encode_lan_message(response_to(*request, std::move(outcome.data)));
  std::uint8_t iv[16];
  crypto::random_bytes(iv);
  Bytes sealed = bmc::ipmi::seal_packet(PayloadType::ipmi_message, s.console_id, s.next_outbound(),
                                        message, &s.security, iv);
  s.last_sequence = packet->sequence;
  s.last_reply = sealed;
  if (outcome.close_this) {
    ++bmc.counters.sessions_closed;
    sessions.close(s.bmc_id);  // `s` is gone from here on
  } else if (ctx.cold_reset) {
    // The BMC restarts after answering: every session, this one too, is gone.
    bmc.counters.sessions_closed += static_cast<unsigned>(sessions.clear());
  }
  return sealed;
}

}  // namespace

void expire_sessions(BmcModel& bmc, SessionTable& sessions, Clock::time_point now) {
  std::vector<std::string> abandoned;
  sessions.expire_idle(now, &abandoned);
  for (const std::string& user : abandoned) bmc.login_failed(bmc.find_user(user), now);
}

std::optional<Bytes> handle_datagram(BmcModel& bmc, SessionTable& sessions, ByteView in,
                                     const std::string& peer, Clock::time_point now) {
  if (in.size() < 5 || in[0] != 0x06) return std::nullopt;
  expire_sessions(bmc, sessions, now);
  if (in[3] == kClassAsf) return asf_pong(in);
  if ((in[3] & 0x1F) != kClassIpmi) return std::nullopt;
  if (in[4] == kAuthRmcpPlus) {
    if (in.size() < 16) return std::nullopt;
    const std::uint32_t session_id = le32_at(in, 6);
    if (session_id == 0) {
      const auto opened = bmc::ipmi::open_packet(in, nullptr);
      const auto* packet = std::get_if<bmc::ipmi::SessionPacket>(&opened);
      if (!packet) return std::nullopt;
      return handshake(bmc, sessions, *packet, peer, now);
    }
    Session* s = sessions.find(session_id);
    if (!s || s->stage != Session::Stage::active) return std::nullopt;
    return in_session(bmc, sessions, *s, in, now);
  }
  if (in[4] != kAuthNone) return std::nullopt;  // IPMI v1.5 sessions are not offered
  const auto opened = bmc::ipmi::open_packet(in, nullptr);
  const auto* packet = std::get_if<bmc::ipmi::SessionPacket>(&opened);
  if (!packet || packet->session_id != 0) return std::nullopt;
  return sessionless(bmc, packet->payload, now, false);
}

}  // namespace ironhold::sim::ipmi

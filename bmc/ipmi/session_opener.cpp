// Opening an RMCP+ session (IPMI v2.0 sections 13.15-13.31): Get Channel Authentication
// Capabilities, Open Session (each preferred cipher suite in turn until the BMC takes one),
// RAKP 1-4, then Set Session Privilege Level. Every refusal becomes a DriverError that names the
// step and the BMC's own words; a wrong user, password or BMC key is auth_failed, which the
// driver does not retry quickly (BMCs lock accounts).
#include <algorithm>
#include <boost/asio/use_awaitable.hpp>

#include "bmc/ipmi/lan_client_impl.hpp"
#include "bmc/ipmi/lan_message.hpp"
#include "bmc/ipmi/rakp.hpp"
#include "bmc/ipmi/session_setup.hpp"
#include "inventory/crypto/primitives.hpp"

namespace ironhold::bmc::ipmi {

namespace asio = boost::asio;

namespace {

constexpr std::uint8_t kCmdGetChannelAuthCaps = 0x38;
constexpr std::uint8_t kCurrentChannel = 0x0E;
constexpr std::uint8_t kWantV2Data = 0x80;
constexpr std::uint8_t kNameOnlyLookup = 0x10;
constexpr std::size_t kMaxUser = 16;
constexpr std::size_t kMaxPassword = 20;
// Suite records are at most 16 suites of 5 bytes: 5 pages of 16 bytes, and one to end the list.
constexpr std::uint8_t kMaxCipherPages = 6;

std::string privilege_name(std::uint8_t level) {
  switch (level) {
    case 1:
      return "callback";
    case 2:
      return "user";
    case 3:
      return "operator";
    case 4:
      return "administrator";
    default:
      return "level " + std::to_string(level);
  }
}

std::uint8_t next_tag(Session& session) {
  const std::uint8_t tag = session.next_rq_seq;
  session.next_rq_seq = (session.next_rq_seq + 1) & 0x3F;
  return tag;
}

Bytes random_block(std::size_t size) {
  Bytes bytes(size);
  crypto::random_bytes(bytes);
  return bytes;
}

std::string suites_text(const std::vector<std::uint8_t>& suites) {
  std::string text;
  for (const auto id : suites) text += (text.empty() ? "" : ", ") + std::to_string(id);
  return text;
}

}  // namespace

asio::awaitable<std::optional<DriverError>> LanClient::Impl::open(
    const std::shared_ptr<Session>& session) {
  const SessionParams& p = session->params;
  const std::string bmc = endpoint_text(p.bmc);
  const std::string user = "user \"" + p.user + "\"";
  std::optional<DriverError> error;
  auto failed = [&](DriverErrorCode code, std::string message) {
    forget_ids(*session);
    return DriverError{code, std::move(message)};
  };
  if (p.user.size() > kMaxUser)
    co_return failed(DriverErrorCode::auth_failed, "IPMI user names have at most 16 bytes; \"" +
                                                       p.user + "\" has " +
                                                       std::to_string(p.user.size()));
  if (p.password.size() > kMaxPassword)
    co_return failed(DriverErrorCode::auth_failed,
                     "IPMI v2.0 passwords have at most 20 bytes; this one has " +
                         std::to_string(p.password.size()));

  // 1. Get Channel Authentication Capabilities, outside any session: is RMCP+ offered at all?
  {
    const Command ask{kNetFnApp,
                      kCmdGetChannelAuthCaps,
                      {static_cast<std::uint8_t>(kWantV2Data | kCurrentChannel), p.privilege}};
    const auto reply = co_await sessionless_call(session, ask, options.attempts);
    if (!reply)
      co_return failed(DriverErrorCode::timeout,
                       "no answer from " + bmc + " to Get Channel Authentication Capabilities (" +
                           std::to_string(options.attempts) +
                           " tries): no BMC there, or its IPMI over LAN is off");
    if (reply->empty() || (*reply)[0] != 0)
      co_return failed(
          DriverErrorCode::rejected,
          bmc + " refused Get Channel Authentication Capabilities: " +
              (reply->empty() ? "no completion code" : completion_code_text((*reply)[0])));
    if (reply->size() < 9)
      co_return failed(DriverErrorCode::bad_response,
                       bmc + " sent a Get Channel Authentication Capabilities answer of " +
                           std::to_string(reply->size()) + " bytes");
    // Byte 2 bit 7: extended data present; byte 4 bit 1: the channel takes IPMI v2.0 sessions.
    if (!((*reply)[2] & 0x80) || !((*reply)[4] & 0x02))
      co_return failed(DriverErrorCode::unsupported,
                       bmc + " offers IPMI v1.5 sessions only, not IPMI v2.0 (RMCP+)");
  }

  // 1b. Get Channel Cipher Suites: a BMC that lacks a suite may not even answer an Open Session
  // asking for it (ipmi_sim does not), so ask which it has and propose only those. A BMC that
  // cannot say gets every preferred suite proposed in turn.
  std::vector<std::uint8_t> candidates = p.cipher_suites;
  {
    Bytes records;
    bool listed = true;
    for (std::uint8_t index = 0; index < kMaxCipherPages && listed; ++index) {
      const Command ask = get_channel_cipher_suites(index);
      const auto reply = co_await sessionless_call(session, ask, 2);
      if (!reply || reply->empty() || (*reply)[0] != 0) {
        listed = false;
        break;
      }
      auto page = parse_cipher_suite_page(ByteView(*reply).subspan(1));
      if (std::holds_alternative<std::string>(page)) {
        listed = false;
        break;
      }
      const Bytes& bytes = std::get<Bytes>(page);
      put(records, bytes);
      if (bytes.size() < 16) break;
    }
    const auto offered = listed ? cipher_suite_ids(records) : std::vector<std::uint8_t>{};
    if (!offered.empty()) {
      std::erase_if(candidates, [&](std::uint8_t id) {
        return std::find(offered.begin(), offered.end(), id) == offered.end();
      });
      if (candidates.empty())
        co_return failed(DriverErrorCode::unsupported,
                         bmc + " accepts none of cipher suites " + suites_text(p.cipher_suites) +
                             " (it offers " + suites_text(offered) + ")");
    }
  }

  // 2. Open Session: the preferred suites in order, until the BMC accepts one.
  std::optional<CipherSuite> chosen;
  std::string refusals;
  for (const std::uint8_t id : candidates) {
    const auto suite = cipher_suite(id);
    if (!suite) {
      refusals += (refusals.empty() ? "" : "; ") + std::to_string(id) + ": not implemented";
      continue;
    }
    forget_ids(*session);
    do {
      crypto::random_bytes(std::span(reinterpret_cast<std::uint8_t*>(&session->console_id), 4));
    } while (session->console_id == 0 || by_console_id.contains(session->console_id));
    register_id(*session);

    Pending opening(strand);
    opening.expect = Expect::open_session;
    opening.tag = next_tag(*session);
    OpenSessionRequest request{opening.tag, p.privilege, session->console_id,
                               Algorithms::of(*suite)};
    opening.outgoing =
        seal_packet(PayloadType::open_session_request, 0, 0, encode(request), nullptr, {});
    const bool answered = co_await exchange(session, opening, options.attempts);
    if (!answered)
      co_return failed(DriverErrorCode::timeout, "no answer from " + bmc +
                                                     " to RMCP+ Open Session Request (suite " +
                                                     std::to_string(id) + ")");
    auto decoded = decode_open_session_response(*opening.reply);
    if (auto* why = std::get_if<std::string>(&decoded))
      co_return failed(DriverErrorCode::bad_response, bmc + ": " + *why);
    const auto& response = std::get<OpenSessionResponse>(decoded);
    if (response.status != 0) {
      if (refuses_algorithms(response.status)) {
        refusals += (refusals.empty() ? "" : "; ") + std::to_string(id) + ": " +
                    rmcp_status_text(response.status);
        continue;
      }
      co_return failed(DriverErrorCode::rejected,
                       bmc + " refused to open a session: " + rmcp_status_text(response.status));
    }
    if (response.algorithms != Algorithms::of(*suite) || response.bmc_session_id == 0)
      co_return failed(DriverErrorCode::bad_response,
                       bmc + " accepted cipher suite " + std::to_string(id) +
                           " but answered with other algorithms or no session ID");
    session->bmc_id = response.bmc_session_id;
    chosen = suite;
    break;
  }
  if (!chosen)
    co_return failed(DriverErrorCode::unsupported, bmc + " accepts none of cipher suites " +
                                                       suites_text(p.cipher_suites) + " (" +
                                                       refusals + ")");

  // 3. RAKP 1 and 2: the BMC proves it knows the password.
  RakpExchange x;
  x.suite = *chosen;
  x.console_session_id = session->console_id;
  x.bmc_session_id = session->bmc_id;
  x.console_random = random_block(16);
  x.role = static_cast<std::uint8_t>(kNameOnlyLookup | p.privilege);
  x.user = p.user;
  x.password = p.password;
  x.bmc_key = p.bmc_key;
  Pending rakp1(strand);
  rakp1.expect = Expect::rakp2;
  rakp1.tag = next_tag(*session);
  rakp1.outgoing = seal_packet(
      PayloadType::rakp1, 0, 0,
      encode(Rakp1{rakp1.tag, x.bmc_session_id, x.console_random, x.role, x.user}), nullptr, {});
  if (!co_await exchange(session, rakp1, options.attempts))
    co_return failed(DriverErrorCode::timeout, "no answer from " + bmc + " to RAKP message 1");
  auto decoded2 = decode_rakp2(*rakp1.reply);
  if (auto* why = std::get_if<std::string>(&decoded2))
    co_return failed(DriverErrorCode::bad_response, bmc + ": " + *why);
  const auto& rakp2 = std::get<Rakp2>(decoded2);
  switch (rakp2.status) {
    case 0x00:
      break;
    case 0x0D:
      co_return failed(DriverErrorCode::auth_failed,
                       bmc + " does not know " + user + " (RAKP 2: unauthorized name)");
    case 0x09:
    case 0x0A:
      co_return failed(DriverErrorCode::auth_failed,
                       user + " may not open a session as " + privilege_name(p.privilege) + " on " +
                           bmc + " (RAKP 2: " + rmcp_status_text(rakp2.status) + ")");
    default:
      co_return failed(DriverErrorCode::rejected,
                       bmc + " refused RAKP message 1: " + rmcp_status_text(rakp2.status));
  }
  x.bmc_random = rakp2.bmc_random;
  x.bmc_guid = rakp2.bmc_guid;
  if (!codes_match(rakp2.code, rakp2_code(x))) {
    // Tell the BMC, so that it frees the half-open session now rather than at its timeout.
    Rakp3 refusal{next_tag(*session),
                  static_cast<std::uint8_t>(RmcpStatus::invalid_integrity_check),
                  x.bmc_session_id,
                  {}};
    const Bytes datagram = seal_packet(PayloadType::rakp3, 0, 0, encode(refusal), nullptr, {});
    send(*session, datagram);
    co_return failed(DriverErrorCode::auth_failed,
                     "wrong password for " + user + " on " + bmc +
                         " (the BMC's RAKP 2 key exchange code does not match)");
  }

  // 4. RAKP 3 and 4: we prove it, and both derive the session keys.
  Pending rakp3(strand);
  rakp3.expect = Expect::rakp4;
  rakp3.tag = next_tag(*session);
  rakp3.outgoing =
      seal_packet(PayloadType::rakp3, 0, 0,
                  encode(Rakp3{rakp3.tag, 0, x.bmc_session_id, rakp3_code(x)}), nullptr, {});
  if (!co_await exchange(session, rakp3, options.attempts))
    co_return failed(DriverErrorCode::timeout, "no answer from " + bmc + " to RAKP message 3");
  auto decoded4 = decode_rakp4(*rakp3.reply);
  if (auto* why = std::get_if<std::string>(&decoded4))
    co_return failed(DriverErrorCode::bad_response, bmc + ": " + *why);
  const auto& rakp4 = std::get<Rakp4>(decoded4);
  if (rakp4.status != 0) {
    const bool credentials = rakp4.status == 0x0F || rakp4.status == 0x0D || rakp4.status == 0x09 ||
                             rakp4.status == 0x0A;
    co_return failed(
        credentials ? DriverErrorCode::auth_failed : DriverErrorCode::rejected,
        bmc + " refused RAKP message 3 for " + user + ": " + rmcp_status_text(rakp4.status));
  }
  SessionKeys keys = derive_keys(x);
  if (!codes_match(rakp4.icv, rakp4_icv(x, keys)))
    co_return failed(DriverErrorCode::auth_failed,
                     bmc +
                         "'s RAKP 4 integrity check value does not match: the BMC key (K_G) "
                         "differs from the one configured");

  // The session is open on both sides from here: a failure below must close it.
  session->security = SessionSecurity{*chosen, std::move(keys)};
  session->state = Session::State::active;
  session->window.reset();
  session->next_sequence = 1;
  session->last_traffic = Clock::now();
  ++counters.open_sessions;
  ++counters.sessions_opened;

  // 5. Sessions start at user level; raise it to what the node's actions need.
  const Command raise = set_session_privilege(p.privilege);
  const CallResult raised = co_await send_command(session, raise, options.attempts);
  if (raised.error) {
    error = raised.error;
  } else if (raised.completion_code != 0 ||
             (!raised.data.empty() && (raised.data[0] & 0x0F) != p.privilege)) {
    const bool refused = raised.completion_code == 0x80 || raised.completion_code == 0x81 ||
                         raised.completion_code == 0xD4 || raised.completion_code == 0;
    const std::string why = raised.completion_code != 0
                                ? completion_code_text(raised.completion_code)
                                : "the BMC granted " + privilege_name(raised.data[0] & 0x0F);
    error = DriverError{refused ? DriverErrorCode::auth_failed : DriverErrorCode::rejected,
                        user + " may not act as " + privilege_name(p.privilege) + " on " + bmc +
                            " (Set Session Privilege Level: " + why + ")"};
    const Command bye = close_session(session->bmc_id);
    co_await send_command(session, bye, 1);
    ++counters.sessions_closed;
  }
  if (error) {
    forget_ids(*session);
    session->state = Session::State::fresh;
  }
  co_return error;
}

asio::awaitable<std::optional<Bytes>> LanClient::Impl::sessionless_call(
    const std::shared_ptr<Session>& session, const Command& command, int attempts) {
  Pending pending(strand);
  pending.expect = Expect::sessionless;
  pending.tag = next_tag(*session);
  pending.netfn = command.netfn;
  pending.command = command.command;
  LanMessage request;
  request.netfn = command.netfn;
  request.command = command.command;
  request.sequence = pending.tag;
  request.data = command.data;
  pending.outgoing = seal_v15_packet(encode_lan_message(request));
  const bool answered = co_await exchange(session, pending, attempts);
  if (!answered) co_return std::nullopt;
  co_return std::move(pending.reply);
}

}  // namespace ironhold::bmc::ipmi

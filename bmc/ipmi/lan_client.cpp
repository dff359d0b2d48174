#include "bmc/ipmi/lan_client.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "bmc/ipmi/lan_client_impl.hpp"
#include "bmc/ipmi/lan_message.hpp"
#include "inventory/crypto/primitives.hpp"

namespace ironhold::bmc::ipmi {

namespace asio = boost::asio;
using asio::ip::udp;

namespace {

std::uint32_t le32_at(ByteView raw, std::size_t at) {
  return static_cast<std::uint32_t>(raw[at]) | static_cast<std::uint32_t>(raw[at + 1]) << 8 |
         static_cast<std::uint32_t>(raw[at + 2]) << 16 |
         static_cast<std::uint32_t>(raw[at + 3]) << 24;
}

std::string hash_text(std::string_view secret) {
  return crypto::to_hex(crypto::sha256(secret));
}

std::string session_key(const SessionParams& p) {
  return endpoint_text(p.bmc) + "\n" + p.user;
}

// Everything else that, changed, needs a new session: never the secrets themselves.
std::string session_fingerprint(const SessionParams& p) {
  std::string text = hash_text(p.password) + "\n" +
                     hash_text(std::string_view(reinterpret_cast<const char*>(p.bmc_key.data()),
                                                p.bmc_key.size())) +
                     "\n" + std::to_string(p.privilege) + "\n";
  for (const auto suite : p.cipher_suites) text += std::to_string(suite) + ",";
  return text;
}

// Where an RMCP+ packet keeps the session IDs the receive side routes by (IPMI v2.0 13.6):
// RMCP header 4 | auth type | payload type | session ID (4) | sequence (4) | length (2) | payload.
constexpr std::size_t kPayloadOffset = 16;
// Datagrams read per wake-up before other work on the strand gets its turn.
constexpr int kMaxDatagramsPerWakeup = 64;

bool is_setup_reply(std::uint8_t payload_type) {
  return payload_type == static_cast<std::uint8_t>(PayloadType::open_session_response) ||
         payload_type == static_cast<std::uint8_t>(PayloadType::rakp2) ||
         payload_type == static_cast<std::uint8_t>(PayloadType::rakp4);
}

PayloadType expected_type(Expect expect) {
  switch (expect) {
    case Expect::open_session:
      return PayloadType::open_session_response;
    case Expect::rakp2:
      return PayloadType::rakp2;
    case Expect::rakp4:
      return PayloadType::rakp4;
    default:
      return PayloadType::ipmi_message;
  }
}

// Releases a session's request lock however the call ends.
class SessionLock {
 public:
  SessionLock(LanClient::Impl& impl, Session& session) : impl_(impl), session_(session) {}
  ~SessionLock() { impl_.unlock(session_); }
  SessionLock(const SessionLock&) = delete;
  SessionLock& operator=(const SessionLock&) = delete;

 private:
  LanClient::Impl& impl_;
  Session& session_;
};

}  // namespace

void SessionParams::prepare() {
  key = session_key(*this);
  fingerprint = session_fingerprint(*this);
}

std::string endpoint_text(const udp::endpoint& endpoint) {
  const auto address = endpoint.address().to_string();
  return (endpoint.address().is_v6() ? "[" + address + "]" : address) + ":" +
         std::to_string(endpoint.port());
}

// ---------------------------------------------------------------------------------------------
// The socket side

LanClient::Impl::Impl(asio::any_io_executor executor, LanClientOptions opts)
    : strand(asio::make_strand(executor)),
      options(opts),
      v4(strand),
      v6(strand),
      housekeeping(strand) {}

void LanClient::Impl::start_receiving(Receiver& receiver) {
  // Wait until the socket is readable, then read every datagram queued: under load a wake-up
  // finds many, and each costs one recvfrom rather than a recvfrom and a re-arm.
  receiver.socket.async_wait(
      udp::socket::wait_read, asio::bind_executor(strand, [self = shared_from_this(), &receiver](
                                                              boost::system::error_code ec) {
        if (ec == asio::error::operation_aborted || self->stopped || !receiver.socket.is_open())
          return;
        for (int i = 0; i < kMaxDatagramsPerWakeup; ++i) {
          const std::size_t size =
              receiver.socket.receive_from(asio::buffer(receiver.buffer), receiver.from, 0, ec);
          // would_block: drained. Other errors (an ICMP error queued for an earlier datagram)
          // concern one BMC, which its own request's timeout reports; the socket goes on.
          if (ec == asio::error::would_block || ec == asio::error::try_again) break;
          if (!ec) self->on_datagram(receiver.from, ByteView(receiver.buffer.data(), size));
        }
        self->start_receiving(receiver);
      }));
}

bool LanClient::Impl::send(Session& session, ByteView datagram) {
  const udp::endpoint& to = session.params.bmc;
  Receiver& receiver = to.address().is_v6() ? v6 : v4;
  boost::system::error_code ec;
  if (!receiver.socket.is_open()) {
    receiver.socket.open(to.address().is_v6() ? udp::v6() : udp::v4(), ec);
    if (ec) return false;
    receiver.socket.non_blocking(true, ec);
    receiver.socket.set_option(asio::socket_base::receive_buffer_size(options.receive_buffer_bytes),
                               ec);  // a smaller buffer only costs drops and retransmissions
    start_receiving(receiver);
  }
  // Non-blocking: a full send buffer is a lost datagram, which the retransmission covers.
  receiver.socket.send_to(asio::buffer(datagram.data(), datagram.size()), to, 0, ec);
  return !ec;
}

void LanClient::Impl::on_datagram(const udp::endpoint& from, ByteView raw) {
  Session* session = nullptr;
  if (raw.size() >= 5 && raw[0] == 0x06 && raw[3] == 0x07) {
    if (raw[4] == 0x06 && raw.size() >= kPayloadOffset) {
      std::uint32_t console_id = le32_at(raw, 6);
      // Set-up replies travel before there is a session ID; their payload names ours.
      if (console_id == 0 && is_setup_reply(raw[5] & 0x3F) && raw.size() >= kPayloadOffset + 8)
        console_id = le32_at(raw, kPayloadOffset + 4);
      if (auto it = by_console_id.find(console_id); console_id != 0 && it != by_console_id.end())
        session = it->second;
    } else if (raw[4] == 0x00) {
      // Several sessions to one BMC may be at this step at once; deliver() matches the rqSeq.
      for (auto [it, end] = sessionless.equal_range(from); it != end && !session; ++it)
        if (it->second->pending && it->second->pending->expect == Expect::sessionless)
          session = it->second;
    }
  }
  if (session && session->payload_sink && raw.size() > 5 &&
      (raw[5] & 0x3F) == static_cast<std::uint8_t>(PayloadType::sol) &&
      session->params.bmc == from) {
    deliver_payload(*session, raw);
    return;
  }
  if (!session || session->params.bmc != from || !session->pending) {
    ++counters.dropped;
    return;
  }
  deliver(*session, raw);
}

void LanClient::Impl::deliver(Session& session, ByteView raw) {
  Pending& pending = *session.pending;
  const bool in_session = pending.expect == Expect::message;
  const SessionSecurity* security = in_session && session.security ? &*session.security : nullptr;
  auto opened = open_packet(raw, security);
  auto* packet = std::get_if<SessionPacket>(&opened);
  bool accepted = false;
  if (packet) {
    if (pending.expect == Expect::sessionless) {
      accepted = !packet->rmcp_plus;
    } else if (packet->rmcp_plus && packet->type == expected_type(pending.expect)) {
      if (!in_session) {
        accepted = !packet->payload.empty() && packet->payload[0] == pending.tag;
      } else {
        // Replays and duplicates die here, after the integrity check proved the sender.
        accepted = packet->session_id == session.console_id &&
                   (!session.security || session.window.accept(packet->sequence));
      }
    }
  }
  if (accepted && (pending.expect == Expect::sessionless || in_session)) {
    auto decoded = decode_lan_message(packet->payload);
    auto* message = std::get_if<LanMessage>(&decoded);
    // An answer to an earlier try of an earlier request carries another rqSeq.
    accepted = message && message->sequence == pending.tag &&
               message->netfn == (pending.netfn | 1) && message->command == pending.command;
    if (accepted) pending.reply = std::move(message->data);
  } else if (accepted) {
    pending.reply = std::move(packet->payload);
  }
  if (!accepted) {
    ++counters.dropped;
    return;
  }
  session.last_traffic = Clock::now();
  pending.timer.cancel();
}

namespace {

Bytes seal_in_session(Session& session, PayloadType type, ByteView payload) {
  std::array<std::uint8_t, 16> iv{};
  const SessionSecurity* security = session.security ? &*session.security : nullptr;
  if (security && security->suite.confidentiality != ConfidentialityAlgorithm::none)
    crypto::random_bytes(iv);
  std::uint32_t sequence = session.next_sequence++;
  if (session.next_sequence == 0) session.next_sequence = 1;  // 0 never appears in a session
  return seal_packet(type, session.bmc_id, sequence, payload, security, iv);
}

}  // namespace

Bytes LanClient::Impl::seal_message(Session& session, ByteView lan_message) {
  return seal_in_session(session, PayloadType::ipmi_message, lan_message);
}

bool LanClient::Impl::send_payload(Session& session, PayloadType type, ByteView payload) {
  if (session.state != Session::State::active) return false;
  return send(session, seal_in_session(session, type, payload));
}

void LanClient::Impl::deliver_payload(Session& session, ByteView raw) {
  const SessionSecurity* security = session.security ? &*session.security : nullptr;
  auto opened = open_packet(raw, security);
  auto* packet = std::get_if<SessionPacket>(&opened);
  if (!packet || !packet->rmcp_plus || packet->session_id != session.console_id ||
      (session.security && !session.window.accept(packet->sequence))) {
    ++counters.dropped;
    return;
  }
  session.last_traffic = session.last_used = Clock::now();
  // The sink may end the payload and clear itself: call a copy.
  auto sink = session.payload_sink;
  sink(packet->payload);
}

asio::awaitable<bool> LanClient::Impl::exchange(const std::shared_ptr<Session>& session,
                                                Pending& pending, int attempts) {
  auto timeout = options.first_timeout;
  const bool sessionless_wait = pending.expect == Expect::sessionless;
  for (int attempt = 0; attempt < attempts && !stopped; ++attempt) {
    if (attempt > 0) ++counters.retransmissions;
    const Bytes datagram = pending.expect == Expect::message
                               ? seal_message(*session, pending.outgoing)
                               : pending.outgoing;
    session->pending = &pending;
    auto waiting = sessionless_wait ? sessionless.emplace(session->params.bmc, session.get())
                                    : sessionless.end();
    send(*session, datagram);  // a failed send is a lost datagram: the timeout retries it
    pending.timer.expires_after(timeout);
    boost::system::error_code ec;
    co_await pending.timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    session->pending = nullptr;
    if (sessionless_wait) sessionless.erase(waiting);
    if (pending.reply) co_return true;
    timeout = std::min(timeout * 2, options.max_timeout);
  }
  co_return false;
}

// ---------------------------------------------------------------------------------------------
// Calls and the session table

asio::awaitable<void> LanClient::Impl::lock(const std::shared_ptr<Session>& session) {
  while (session->busy) {
    auto waiter = std::make_shared<asio::steady_timer>(strand, Clock::time_point::max());
    session->waiters.push_back(waiter);
    boost::system::error_code ec;
    co_await waiter->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  session->busy = true;
}

void LanClient::Impl::unlock(Session& session) {
  session.busy = false;
  if (!session.waiters.empty()) {
    session.waiters.front()->cancel();
    session.waiters.pop_front();
  }
}

void LanClient::Impl::register_id(Session& session) {
  by_console_id[session.console_id] = &session;
}

void LanClient::Impl::forget_ids(Session& session) {
  if (session.console_id != 0) {
    auto it = by_console_id.find(session.console_id);
    if (it != by_console_id.end() && it->second == &session) by_console_id.erase(it);
  }
  if (session.state == Session::State::active) --counters.open_sessions;
  session.console_id = session.bmc_id = 0;
  session.security.reset();
  session.window.reset();
  session.next_sequence = 1;
  if (session.payload_lost) {
    auto lost = std::move(session.payload_lost);
    session.payload_sink = nullptr;
    session.payload_lost = nullptr;
    lost();
  }
}

void LanClient::Impl::fail(Session& session, DriverError error) {
  forget_ids(session);
  session.state = Session::State::failed;
  session.failure = std::move(error);
  session.failed_at = Clock::now();
  // A rejected login stays in the table for a while (see remember_rejection); after anything
  // else the next call starts over with a new session.
  if (session.failure->code == DriverErrorCode::auth_failed) return;
  if (auto it = sessions.find(session.key); it != sessions.end() && it->second.get() == &session)
    sessions.erase(it);
}

bool LanClient::Impl::remembered_rejection(const Session& session, Clock::time_point now) const {
  return session.state == Session::State::failed &&
         now - session.failed_at < options.remember_rejection;
}

asio::awaitable<CallResult> LanClient::Impl::call(const SessionParams& params,
                                                  const Command& command) {
  ++counters.requests;
  std::shared_ptr<Session> session;
  if (auto it = sessions.find(params.key); it != sessions.end()) {
    const bool failed = it->second->state == Session::State::failed;
    if (it->second->fingerprint == params.fingerprint &&
        (!failed || remembered_rejection(*it->second, Clock::now()))) {
      session = it->second;
    } else {
      // New secrets for this BMC and user (the old session holds a slot until closed), or a
      // rejection old enough to try again.
      auto old = it->second;
      sessions.erase(it);
      if (!failed) asio::co_spawn(strand, close(std::move(old)), asio::detached);
    }
  }
  if (!session) {
    session = std::make_shared<Session>();
    session->params = params;
    session->key = params.key;
    session->fingerprint = params.fingerprint;
    sessions.emplace(params.key, session);
    start_housekeeping();
  }
  if (session->busy)
    co_await lock(session);  // waits its turn
  else
    session->busy = true;
  SessionLock held(*this, *session);
  session->last_used = Clock::now();
  CallResult result = co_await call_locked(session, command);
  co_return result;
}

asio::awaitable<CallResult> LanClient::Impl::call_locked(const std::shared_ptr<Session>& session,
                                                         const Command& command) {
  if (session->state == Session::State::failed) co_return CallResult{session->failure, 0, {}};
  if (session->state == Session::State::closed)
    co_return CallResult{
        DriverError{DriverErrorCode::unreachable, "the session was closed"}, 0, {}};
  const bool reused = session->state == Session::State::active;
  if (!reused) {
    auto error = co_await open(session);
    if (error) {
      fail(*session, *error);
      co_return CallResult{error, 0, {}};
    }
  }
  CallResult result = co_await send_command(session, command, options.attempts);
  if (!reused || !result.error || result.error->code != DriverErrorCode::timeout) co_return result;
  // A session that answered before and now is silent: the BMC dropped it (expiry, a reset).
  // Open a new one, once; if the BMC itself is gone, that fails quickly and says so.
  forget_ids(*session);
  session->state = Session::State::fresh;
  auto error = co_await open(session);
  if (error) {
    fail(*session, *error);
    co_return CallResult{error, 0, {}};
  }
  result = co_await send_command(session, command, options.attempts);
  co_return result;
}

asio::awaitable<CallResult> LanClient::Impl::send_command(const std::shared_ptr<Session>& session,
                                                          const Command& command, int attempts) {
  Pending pending(strand);
  pending.expect = Expect::message;
  pending.tag = session->next_rq_seq;
  session->next_rq_seq = (session->next_rq_seq + 1) & 0x3F;
  pending.netfn = command.netfn;
  pending.command = command.command;
  LanMessage message;
  message.netfn = command.netfn;
  message.command = command.command;
  message.sequence = pending.tag;
  message.data = command.data;
  pending.outgoing = encode_lan_message(message);
  const bool answered = co_await exchange(session, pending, attempts);
  CallResult result;
  if (!answered) {
    result.error =
        DriverError{DriverErrorCode::timeout,
                    "no answer from " + endpoint_text(session->params.bmc) + " to netFn " +
                        hex_byte(command.netfn) + " command " + hex_byte(command.command) + " (" +
                        std::to_string(attempts) + " tries)"};
    co_return result;
  }
  Bytes& reply = *pending.reply;
  if (reply.empty()) {
    result.error =
        DriverError{DriverErrorCode::bad_response,
                    endpoint_text(session->params.bmc) + " answered without a completion code"};
    co_return result;
  }
  result.completion_code = reply[0];
  result.data.assign(reply.begin() + 1, reply.end());
  co_return result;
}

asio::awaitable<void> LanClient::Impl::close(std::shared_ptr<Session> session) {
  if (session->busy)
    co_await lock(session);  // waits its turn
  else
    session->busy = true;
  SessionLock held(*this, *session);
  if (session->state == Session::State::active) {
    // Two tries at most: the slot matters, but a silent BMC must not hold up a shutdown.
    const Command bye = close_session(session->bmc_id);
    co_await send_command(session, bye, std::min(options.attempts, 2));
    ++counters.sessions_closed;
  }
  forget_ids(*session);
  session->state = Session::State::closed;
}

asio::awaitable<void> LanClient::Impl::close_matching(std::optional<udp::endpoint> bmc) {
  std::vector<std::shared_ptr<Session>> closing;
  for (auto it = sessions.begin(); it != sessions.end();) {
    if (!bmc || it->second->params.bmc == *bmc) {
      closing.push_back(it->second);
      it = sessions.erase(it);
    } else {
      ++it;
    }
  }
  // All at once: a silent BMC costs its two timeouts once, not once per session.
  auto remaining = std::make_shared<std::size_t>(closing.size());
  asio::steady_timer done(strand, Clock::time_point::max());
  for (auto& session : closing) {
    asio::co_spawn(strand, close(session), [remaining, &done](std::exception_ptr) {
      if (--*remaining == 0) done.cancel();
    });
  }
  if (*remaining > 0) {
    boost::system::error_code ec;
    co_await done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

asio::awaitable<void> LanClient::Impl::keep_alive(std::shared_ptr<Session> session) {
  if (session->busy)
    co_await lock(session);  // waits its turn
  else
    session->busy = true;
  SessionLock held(*this, *session);
  if (session->state != Session::State::active) co_return;
  const Command ping = get_device_id();
  const CallResult result = co_await send_command(session, ping, options.attempts);
  if (result.error) {
    // The BMC forgot the session (or is gone): the next call opens a new one.
    forget_ids(*session);
    session->state = Session::State::fresh;
  }
}

void LanClient::Impl::start_housekeeping() {
  if (housekeeping_running || stopped) return;
  housekeeping_running = true;
  asio::co_spawn(strand, housekeeping_loop(), asio::detached);
}

asio::awaitable<void> LanClient::Impl::housekeeping_loop() {
  auto self = shared_from_this();
  const auto period = std::max(std::chrono::milliseconds(250), options.keepalive_after / 4);
  while (!stopped) {
    housekeeping.expires_after(period);
    boost::system::error_code ec;
    co_await housekeeping.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (stopped) break;
    const auto now = Clock::now();
    for (auto it = sessions.begin(); it != sessions.end();) {
      const auto session = it->second;
      if (session->state == Session::State::failed && !remembered_rejection(*session, now)) {
        it = sessions.erase(it);
        continue;
      }
      const bool idle = session->state == Session::State::active && !session->busy;
      // A console's session stays however quiet it is; keep-alives still go to it.
      if (idle && !session->payload_sink && now - session->last_used > options.close_unused_after) {
        it = sessions.erase(it);
        asio::co_spawn(strand, close(session), asio::detached);
        continue;
      }
      if (idle && now - session->last_traffic > options.keepalive_after)
        asio::co_spawn(strand, keep_alive(session), asio::detached);
      ++it;
    }
  }
  housekeeping_running = false;
}

void LanClient::Impl::stop() {
  stopped = true;
  housekeeping.cancel();
  boost::system::error_code ec;
  v4.socket.close(ec);
  v6.socket.close(ec);
  for (auto& [id, session] : by_console_id)
    if (session->pending) session->pending->timer.cancel();
}

// ---------------------------------------------------------------------------------------------
// The public face: every call runs on the client's strand.

LanClient::LanClient(asio::any_io_executor executor, LanClientOptions options)
    : impl_(std::make_shared<Impl>(std::move(executor), options)) {}

LanClient::~LanClient() {
  asio::post(impl_->strand, [impl = impl_] { impl->stop(); });
}

namespace {

// The unprepared caller's path: a prepared copy lives in this frame for the call's length.
asio::awaitable<CallResult> call_with_copy(std::shared_ptr<LanClient::Impl> impl,
                                           SessionParams params, const Command& command) {
  params.prepare();
  auto work = impl->call(params, command);
  CallResult result = co_await asio::co_spawn(impl->strand, std::move(work), asio::use_awaitable);
  co_return result;
}

}  // namespace

asio::awaitable<CallResult> LanClient::call(const SessionParams& params, const Command& command) {
  if (params.key.empty() || params.fingerprint.empty())
    return call_with_copy(impl_, params, command);
  // The poll path: straight onto the client's strand, no frame of its own. The caller keeps
  // `params`, `command` and this client alive until the call completes.
  return asio::co_spawn(impl_->strand, impl_->call(params, command), asio::use_awaitable);
}

asio::awaitable<void> LanClient::close_sessions(udp::endpoint bmc) {
  auto impl = impl_;
  auto work = impl->close_matching(bmc);
  co_await asio::co_spawn(impl->strand, std::move(work), asio::use_awaitable);
}

asio::awaitable<void> LanClient::close_all() {
  auto impl = impl_;
  auto work = impl->close_matching(std::nullopt);
  co_await asio::co_spawn(impl->strand, std::move(work), asio::use_awaitable);
}

LanClientStats LanClient::stats() const {
  const auto& c = impl_->counters;
  return {c.open_sessions.load(), c.sessions_opened.load(), c.sessions_closed.load(),
          c.requests.load(),      c.retransmissions.load(), c.dropped.load()};
}

}  // namespace ironhold::bmc::ipmi

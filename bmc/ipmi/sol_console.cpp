#include "bmc/ipmi/sol_console.hpp"

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "bmc/ipmi/lan_client_impl.hpp"
#include "bmc/ipmi/payload_commands.hpp"

namespace ironhold::bmc::ipmi {

namespace asio = boost::asio;

struct SolConsole::State : std::enable_shared_from_this<SolConsole::State> {
  State(std::shared_ptr<LanClient::Impl> client, SessionParams p, SolConsoleEvents e,
        SolTransferOptions options)
      : impl(std::move(client)),
        params(std::move(p)),
        events(std::move(e)),
        transfer(options),
        wake(impl->strand),
        max_backlog(options.max_queued) {}

  std::shared_ptr<LanClient::Impl> impl;
  SessionParams params;  // keyed apart from the polls' session
  SolConsoleEvents events;
  SolTransfer transfer;  // strand only
  std::shared_ptr<Session> session;
  asio::steady_timer wake;  // the pump sleeps on it until the next retry or new work
  bool finished = false;    // ended or closed: no more callbacks, no more packets
  std::atomic<bool> is_open{true};
  std::atomic<std::uint64_t> characters_in{0}, characters_out{0}, retransmissions{0};
  // Characters written and not yet acknowledged, as write() may read it from any thread.
  std::atomic<std::size_t> backlog{0};
  std::size_t max_backlog;

  void on_payload(ByteView payload);
  asio::awaitable<void> pump();
  void end(DriverError why);
  void detach();
};

namespace {

// Closes a console's own session, whatever state it is in, and takes it out of the table.
asio::awaitable<void> drop_session(std::shared_ptr<LanClient::Impl> impl,
                                   std::shared_ptr<Session> session) {
  if (auto it = impl->sessions.find(session->key);
      it != impl->sessions.end() && it->second == session)
    impl->sessions.erase(it);
  co_await impl->close(session);
}

DriverErrorCode refusal_code(std::uint8_t completion_code) {
  switch (completion_code) {
    case kCcPayloadTypeDisabled:
    case kCcPayloadNeedsEncryption:
    case kCcPayloadNeedsNoEncryption:
    case 0xC1:  // invalid command: a BMC without SOL
      return DriverErrorCode::unsupported;
    default:
      return DriverErrorCode::rejected;
  }
}

asio::awaitable<std::variant<std::shared_ptr<SolConsole>, DriverError>> open_on_strand(
    std::shared_ptr<LanClient::Impl> impl, SessionParams params, SolConsoleEvents events,
    SolTransferOptions options) {
  params.prepare();
  // A session per console: two consoles to one BMC are two clients to it, and the BMC's own
  // takeover rule (one payload instance) decides between them.
  static std::atomic<std::uint64_t> consoles{0};
  params.key += "\nconsole " + std::to_string(++consoles);
  const std::string bmc = endpoint_text(params.bmc);

  // Log in first: the payload is protected as the session's cipher suite says.
  const Command hello = get_device_id();
  const CallResult greeted = co_await impl->call(params, hello);
  if (greeted.error) co_return *greeted.error;
  const auto found = impl->sessions.find(params.key);
  if (found == impl->sessions.end() || found->second->state != Session::State::active)
    co_return DriverError{DriverErrorCode::unreachable,
                          "the console session to " + bmc + " closed while opening"};
  const std::shared_ptr<Session> session = found->second;
  const bool encrypted = session->security &&
                         session->security->suite.confidentiality != ConfidentialityAlgorithm::none;
  const bool authenticated =
      session->security && session->security->suite.integrity != IntegrityAlgorithm::none;

  const Command activate = activate_sol(encrypted, authenticated);
  CallResult activated = co_await impl->call(params, activate);
  if (!activated.error && activated.completion_code == kCcPayloadAlreadyActive) {
    // Left active by a client that went away: take it over.
    const Command deactivate = deactivate_sol();
    co_await impl->call(params, deactivate);
    activated = co_await impl->call(params, activate);
  }
  std::optional<DriverError> error = activated.error;
  PayloadActivation activation;
  if (!error && activated.completion_code != 0) {
    error = DriverError{refusal_code(activated.completion_code),
                        bmc + ": " + activation_refusal_text(activated.completion_code)};
  } else if (!error) {
    auto parsed = parse_payload_activation(activated.data);
    if (auto* problem = std::get_if<std::string>(&parsed))
      error = DriverError{DriverErrorCode::bad_response, bmc + ": " + *problem};
    else
      activation = std::get<PayloadActivation>(parsed);
  }
  if (!error && activation.port != params.bmc.port())
    error = DriverError{DriverErrorCode::unsupported,
                        bmc + " wants the serial console on UDP port " +
                            std::to_string(activation.port) +
                            ", not the session's port; Ironhold does not follow such BMCs"};
  if (error) {
    co_await drop_session(impl, session);
    co_return *error;
  }

  options.max_chunk = std::min<std::size_t>(options.max_chunk, activation.inbound_size - 4u);
  auto state =
      std::make_shared<SolConsole::State>(impl, std::move(params), std::move(events), options);
  state->session = session;
  std::weak_ptr<SolConsole::State> weak = state;
  session->payload_sink = [weak](ByteView payload) {
    if (auto s = weak.lock()) s->on_payload(payload);
  };
  session->payload_lost = [weak] {
    if (auto s = weak.lock())
      s->end({DriverErrorCode::unreachable,
              endpoint_text(s->params.bmc) + " dropped the console's session"});
  };
  asio::co_spawn(impl->strand, state->pump(), asio::detached);
  co_return std::make_shared<SolConsole>(std::move(state));
}

}  // namespace

void SolConsole::State::on_payload(ByteView payload) {
  if (finished) return;
  const auto packet = decode_sol(payload);
  if (!packet) return;  // not a SOL packet: dropped like any malformed datagram
  auto received = transfer.receive(*packet, SolTransfer::Clock::now());
  if (!received.characters.empty()) {
    characters_in += received.characters.size();
    if (events.output)
      events.output(std::string_view(reinterpret_cast<const char*>(received.characters.data()),
                                     received.characters.size()));
  }
  wake.cancel();  // an acknowledgement to send, or room for the next packet
  if (received.status & kSolDeactivating)
    end({DriverErrorCode::rejected,
         endpoint_text(params.bmc) + " ended the serial console (another client took it over)"});
}

asio::awaitable<void> SolConsole::State::pump() {
  auto self = shared_from_this();
  while (!finished) {
    const auto now = SolTransfer::Clock::now();
    while (auto packet = transfer.next(now)) {
      if (!packet->data.empty()) characters_out += packet->data.size();
      const Bytes payload = encode_sol(*packet);
      impl->send_payload(*session, PayloadType::sol, payload);
    }
    retransmissions = transfer.retransmissions();
    backlog = transfer.queued();
    if (transfer.peer_gone()) {
      end({DriverErrorCode::timeout,
           endpoint_text(params.bmc) + " stopped acknowledging the serial console"});
      break;
    }
    const auto deadline = transfer.deadline();
    wake.expires_at(deadline ? *deadline : SolTransfer::Clock::time_point::max());
    boost::system::error_code ec;
    co_await wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

void SolConsole::State::detach() {
  finished = true;
  is_open = false;
  wake.cancel();
  session->payload_sink = nullptr;
  session->payload_lost = nullptr;
}

void SolConsole::State::end(DriverError why) {
  if (finished) return;
  detach();
  asio::co_spawn(impl->strand, drop_session(impl, session), asio::detached);
  if (events.ended) events.ended(why);
}

asio::awaitable<std::variant<std::shared_ptr<SolConsole>, DriverError>> SolConsole::open(
    LanClient& client, SessionParams params, SolConsoleEvents events, SolTransferOptions options) {
  auto impl = client.impl_;
  auto work = open_on_strand(impl, std::move(params), std::move(events), options);
  co_return co_await asio::co_spawn(impl->strand, std::move(work), asio::use_awaitable);
}

bool SolConsole::write(std::string_view characters) {
  if (!state_->is_open) return false;
  if (state_->backlog.fetch_add(characters.size()) + characters.size() > state_->max_backlog) {
    state_->backlog -= characters.size();
    return false;
  }
  asio::post(state_->impl->strand,
             [state = state_, data = Bytes(characters.begin(), characters.end())] {
               if (state->finished) return;
               state->transfer.queue(data);
               state->wake.cancel();
             });
  return true;
}

void SolConsole::send_break() {
  asio::post(state_->impl->strand, [state = state_] {
    if (state->finished) return;
    state->transfer.request_operation(kSolGenerateBreak);
    state->wake.cancel();
  });
}

namespace {

asio::awaitable<void> close_on_strand(std::shared_ptr<SolConsole::State> state) {
  if (state->finished) co_return;
  state->detach();
  const Command deactivate = deactivate_sol();
  co_await state->impl->call(state->params, deactivate);
  co_await drop_session(state->impl, state->session);
}

}  // namespace

asio::awaitable<void> SolConsole::close() {
  co_await asio::co_spawn(state_->impl->strand, close_on_strand(state_), asio::use_awaitable);
}

SolConsole::~SolConsole() {
  asio::co_spawn(state_->impl->strand, close_on_strand(state_), asio::detached);
}

bool SolConsole::open() const {
  return state_->is_open;
}

SolConsoleStats SolConsole::stats() const {
  return {state_->characters_in, state_->characters_out, state_->retransmissions};
}

}  // namespace ironhold::bmc::ipmi

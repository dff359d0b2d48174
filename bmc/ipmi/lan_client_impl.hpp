#pragma once
// Inside the LanClient (lan_client.hpp): its sessions, the socket side (lan_client.cpp) and the
// session set-up (session_opener.cpp). Every member is touched on `strand` only.
#include <array>
#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>

#include "bmc/ipmi/lan_client.hpp"
#include "bmc/ipmi/sequence_window.hpp"
#include "bmc/ipmi/session_packet.hpp"

namespace ironhold::bmc::ipmi {

using Clock = std::chrono::steady_clock;
using Strand = boost::asio::strand<boost::asio::any_io_executor>;

// What a request waits for; the receive side routes and checks each datagram against it.
enum class Expect : std::uint8_t { sessionless, open_session, rakp2, rakp4, message };

struct Pending {
  explicit Pending(const Strand& strand) : timer(strand) {}
  Expect expect = Expect::message;
  // A message: the LAN message, sealed again with a new session sequence number on each try.
  // Anything else: the whole datagram, sent as it is each time.
  Bytes outgoing;
  std::uint8_t tag = 0;  // the set-up message tag, or the LAN message's rqSeq
  std::uint8_t netfn = 0, command = 0;
  boost::asio::steady_timer timer;  // cancelled when the answer arrives
  std::optional<Bytes> reply;       // a set-up payload, or the LAN response's data
};

struct Session {
  enum class State { fresh, active, failed, closed };

  SessionParams params;
  std::string key;          // BMC address + user: at most one session each
  std::string fingerprint;  // hashes of the secrets, the suites, the privilege
  State state = State::fresh;
  std::optional<DriverError> failure;  // why set-up failed (State::failed)
  Clock::time_point failed_at;         // when, for a rejected login kept in the table

  std::uint32_t console_id = 0;  // SIDm: ours, what the BMC's packets carry
  std::uint32_t bmc_id = 0;      // SIDc: the BMC's, what ours carry
  std::optional<SessionSecurity> security;
  std::uint32_t next_sequence = 1;
  std::uint8_t next_rq_seq = 0;
  SequenceWindow window;

  Clock::time_point last_used;     // by a call (not by keep-alives)
  Clock::time_point last_traffic;  // anything answered
  Pending* pending = nullptr;      // the request in flight

  // A payload activated in this session (Serial-over-LAN): its packets go to the sink, not to
  // `pending`, and `payload_lost` hears when the session is gone under it. While a sink is set
  // the session is never closed as unused.
  std::function<void(ByteView payload)> payload_sink;
  std::function<void()> payload_lost;

  // One request at a time per session: the BMC's sequence numbers and the set-up depend on it.
  bool busy = false;
  std::deque<std::shared_ptr<boost::asio::steady_timer>> waiters;
};

struct LanClient::Impl : std::enable_shared_from_this<LanClient::Impl> {
  Impl(boost::asio::any_io_executor executor, LanClientOptions options);

  Strand strand;
  LanClientOptions options;

  struct Receiver {
    explicit Receiver(const Strand& strand) : socket(strand) {}
    boost::asio::ip::udp::socket socket;
    std::array<std::uint8_t, 2048> buffer{};
    boost::asio::ip::udp::endpoint from;
  };
  Receiver v4, v6;
  boost::asio::steady_timer housekeeping;
  bool housekeeping_running = false;
  bool stopped = false;

  std::unordered_map<std::string, std::shared_ptr<Session>> sessions;  // by key
  std::unordered_map<std::uint32_t, Session*> by_console_id;
  // Sessions waiting for a session-less (IPMI v1.5) answer, which carries no session ID.
  std::multimap<boost::asio::ip::udp::endpoint, Session*> sessionless;

  struct Counters {
    std::atomic<std::size_t> open_sessions{0};
    std::atomic<std::uint64_t> sessions_opened{0}, sessions_closed{0}, requests{0},
        retransmissions{0}, dropped{0};
  } counters;

  // --- the socket side (lan_client.cpp) ---
  void start_receiving(Receiver& receiver);
  void on_datagram(const boost::asio::ip::udp::endpoint& from, ByteView raw);
  void deliver(Session& session, ByteView raw);
  bool send(Session& session, ByteView datagram);
  // A rejected login still answering calls with the same secrets (remember_rejection).
  bool remembered_rejection(const Session& session, Clock::time_point now) const;
  // Sends the pending request and waits for its answer, retransmitting; false when none came.
  boost::asio::awaitable<bool> exchange(const std::shared_ptr<Session>& session, Pending& pending,
                                        int attempts);
  Bytes seal_message(Session& session, ByteView lan_message);
  // A payload other than an IPMI message (SOL) in the session, sealed with its next sequence
  // number; and one arriving, checked like any in-session packet before the sink sees it.
  bool send_payload(Session& session, PayloadType type, ByteView payload);
  void deliver_payload(Session& session, ByteView raw);

  // --- calls and the session table (lan_client.cpp) ---
  boost::asio::awaitable<CallResult> call(const SessionParams& params, const Command& command);
  boost::asio::awaitable<CallResult> call_locked(const std::shared_ptr<Session>& session,
                                                 const Command& command);
  boost::asio::awaitable<CallResult> send_command(const std::shared_ptr<Session>& session,
                                                  const Command& command, int attempts);
  boost::asio::awaitable<void> lock(const std::shared_ptr<Session>& session);
  void unlock(Session& session);
  void register_id(Session& session);
  void forget_ids(Session& session);
  void fail(Session& session, DriverError error);
  boost::asio::awaitable<void> close(std::shared_ptr<Session> session);
  boost::asio::awaitable<void> close_matching(std::optional<boost::asio::ip::udp::endpoint> bmc);
  boost::asio::awaitable<void> keep_alive(std::shared_ptr<Session> session);
  void start_housekeeping();
  boost::asio::awaitable<void> housekeeping_loop();
  void stop();

  // --- session set-up (session_opener.cpp) ---
  // A command outside any session (IPMI v1.5 wrapper, no authentication): its LAN response data
  // (completion code first), or nothing when the BMC did not answer.
  boost::asio::awaitable<std::optional<Bytes>> sessionless_call(
      const std::shared_ptr<Session>& session, const Command& command, int attempts);
  // Opens the session or says why not; on success the session is active.
  boost::asio::awaitable<std::optional<DriverError>> open(const std::shared_ptr<Session>& session);
};

}  // namespace ironhold::bmc::ipmi

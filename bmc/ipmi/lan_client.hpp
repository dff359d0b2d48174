#pragma once
// The IPMI v2.0 (RMCP+) client: sessions to many BMCs over one UDP socket per address family, on
// the shared Asio loop. No thread or socket per BMC, no subprocess.
//
// A call names the BMC and the credentials; the client finds that BMC's session (or opens one:
// Get Channel Authentication Capabilities, Open Session, RAKP 1-4, Set Session Privilege Level),
// sends the command and waits for its answer, retransmitting with a doubling timeout. Replies are
// matched to their session by the console session ID they carry (or, before there is one, by the
// BMC's address), checked (integrity code, sequence window, request sequence), and anything that
// does not fit is dropped and counted.
//
// BMCs have few session slots, so the client never leaks one: a session is reused by every call
// with the same BMC, user and secrets; kept alive between polls; closed (Close Session) when its
// credentials change, when nothing used it for a long time, and at shutdown; re-opened once when
// the BMC dropped it (a call on it goes unanswered).
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/udp.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bmc/ipmi/bytes.hpp"
#include "bmc/ipmi/commands.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::ipmi {

// Privilege levels (IPMI v2.0 table 6-1).
inline constexpr std::uint8_t kPrivilegeUser = 2;
inline constexpr std::uint8_t kPrivilegeOperator = 3;
inline constexpr std::uint8_t kPrivilegeAdministrator = 4;

struct SessionParams {
  boost::asio::ip::udp::endpoint bmc;
  std::string user;      // at most 16 bytes
  std::string password;  // at most 20 bytes
  Bytes bmc_key;         // K_G, at most 20 bytes; empty: none
  // Tried in this order; suite 0 (no authentication) only when listed here explicitly.
  std::vector<std::uint8_t> cipher_suites{17, 3};
  std::uint8_t privilege = kPrivilegeAdministrator;

  // Filled by prepare() (call() does it when they are empty): the session table's key (BMC
  // address and user) and a fingerprint of the rest (hashes of the secrets, suites, privilege).
  // Callers that poll the same BMC often keep prepared params, so that nothing is hashed per call.
  std::string key, fingerprint;
  void prepare();
};

struct LanClientOptions {
  // Each request is sent up to `attempts` times, waiting first_timeout, then twice as long each
  // time up to max_timeout (defaults: 0.5 + 1 + 2 + 2 = 5.5 s before a BMC counts as silent).
  std::chrono::milliseconds first_timeout{500};
  std::chrono::milliseconds max_timeout{2000};
  int attempts = 4;
  // An open session nobody sent anything on for this long gets a Get Device ID, so that the BMC
  // does not expire it between polls (BMCs drop idle sessions after 30-60 s).
  std::chrono::milliseconds keepalive_after{20'000};
  // A session no call used for this long is closed: its node is gone or no longer polled.
  std::chrono::milliseconds close_unused_after{10 * 60'000};
  // A login the BMC rejected answers every call with the same secrets for this long, without a
  // new login: the polls of a node that start together must not each try (BMCs lock accounts
  // after a few failures). Past it, the driver's own backoff decides when to try again.
  std::chrono::milliseconds remember_rejection{60'000};
  // The kernel's receive buffer for the socket: a sweep of thousands of BMCs answers in bursts.
  int receive_buffer_bytes = 4 << 20;
};

// The answer to a command: an error (no answer, credentials refused, a malformed reply) or the
// completion code and the response data after it. A non-zero completion code is not an error at
// this level: callers decide (0xC8 "shrink the read", 0xC1 "not supported").
struct CallResult {
  std::optional<DriverError> error;
  std::uint8_t completion_code = 0;
  Bytes data;
  bool ok() const { return !error && completion_code == 0; }
};

struct LanClientStats {
  std::size_t open_sessions = 0;
  std::uint64_t sessions_opened = 0;
  std::uint64_t sessions_closed = 0;
  std::uint64_t requests = 0;
  std::uint64_t retransmissions = 0;
  std::uint64_t dropped = 0;  // datagrams that fit no pending request (late, forged, replayed)
};

class LanClient {
 public:
  explicit LanClient(boost::asio::any_io_executor executor, LanClientOptions options = {});
  ~LanClient();
  LanClient(const LanClient&) = delete;
  LanClient& operator=(const LanClient&) = delete;

  // Sends `command` in the BMC's session (opened first if needed). Never throws for anything the
  // BMC or the network does.
  // `params` and `command` must stay alive until the call completes (they are not copied).
  boost::asio::awaitable<CallResult> call(const SessionParams& params, const Command& command);

  // Closes every session to `bmc` (a node deleted, its credentials changed).
  boost::asio::awaitable<void> close_sessions(boost::asio::ip::udp::endpoint bmc);
  // Closes every session; the client stays usable. At service shutdown.
  boost::asio::awaitable<void> close_all();

  LanClientStats stats() const;

  struct Impl;

 private:
  friend class SolConsole;  // a console's own session and its payload (sol_console.hpp)
  std::shared_ptr<Impl> impl_;
};

// "127.0.0.1:623" or "[::1]:623", for messages and keys.
std::string endpoint_text(const boost::asio::ip::udp::endpoint& endpoint);

}  // namespace ironhold::bmc::ipmi

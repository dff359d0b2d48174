#pragma once
// Redfish sessions shared by every call to one BMC, keyed by address + user + a hash of the
// password, so that a changed password never reuses a session opened with the old one. The cache
// also remembers credentials a BMC rejected: BMCs lock accounts after a few failures, so a
// rejected key is not tried again before a long, doubling backoff (or until the credentials, and
// so the key, change). Logins for one key are serialized (login_gate) so that concurrent requests
// to one BMC never open two sessions at once.
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bmc/http/per_host_limiter.hpp"
#include "bmc/http/tls_policy.hpp"

namespace ironhold::bmc::redfish {

enum class AuthMode {
  session,  // X-Auth-Token from a SessionService login
  basic,    // the service has no (working) SessionService: Authorization: Basic on each request
};

struct CachedSession {
  AuthMode mode = AuthMode::session;
  std::string token;        // X-Auth-Token (session mode)
  std::string session_uri;  // path of the session resource, for the DELETE at shutdown
  // Where and how to reach the BMC for that DELETE: the address and the TLS policy of the login
  // (pinned to the certificate it saw), so a logout never goes to a swapped certificate.
  std::string base_url;
  http::TlsPolicy tls;
  // Set when the BMC had no free session slot (iDRAC's RAC0218, Base's SessionLimitExceeded):
  // Basic auth on each request until then, when a session is tried again. A full session table
  // (other tools, or sessions a crashed client leaked) must not stop every poll until it drains.
  std::optional<std::chrono::steady_clock::time_point> basic_until;
};

struct AuthBackoffOptions {
  std::chrono::seconds initial{15 * 60};
  std::chrono::seconds max{4 * 60 * 60};
  // How long Basic auth stands in for a session after a BMC said its sessions are all taken.
  std::chrono::seconds session_slots_retry{5 * 60};
};

// "https://10.0.0.1:443\nadmin\n<sha256 hex of the password>": never holds the password itself.
std::string session_key(const std::string& base_url, const std::string& user,
                        const std::string& password);

class SessionCache {
 public:
  using Clock = std::chrono::steady_clock;

  explicit SessionCache(
      AuthBackoffOptions backoff = {},
      std::function<Clock::time_point()> now = [] { return Clock::now(); });

  // The key's session; nothing when there is none or when it is a Basic-auth stand-in past its
  // basic_until (a session is to be tried again).
  std::optional<CachedSession> find(const std::string& key) const;
  // Stores the key's session and returns the sessions it supersedes: those of the same BMC and
  // user under another password, which nothing will use again but which hold one of the BMC's
  // few session slots until they are logged out.
  [[nodiscard]] std::vector<CachedSession> store(const std::string& key, CachedSession session);
  // Drops the key's session if it is still the one with `token` (a 401 says it expired). A
  // newer session another request opened in the meantime stays.
  void invalidate(const std::string& key, const std::string& token);
  // Removes and returns every session (for the logouts at shutdown).
  std::vector<CachedSession> take_all();

  // How long the key stays barred after rejected credentials; nothing when it may log in.
  std::optional<Clock::duration> barred_for(const std::string& key) const;
  // The BMC rejected the credentials: bar the key for the current backoff, then double it.
  void record_rejection(const std::string& key);
  void record_success(const std::string& key);

  // Until when Basic auth stands in for a session refused now for want of a free slot.
  Clock::time_point basic_until_after_session_limit() const;

  // Serializes logins per key: hold the permit while logging in.
  boost::asio::awaitable<http::PerHostLimiter::Permit> login_gate(std::string key);

 private:
  struct Rejection {
    Clock::time_point until;
    Clock::duration next_backoff;
  };

  AuthBackoffOptions backoff_;
  std::function<Clock::time_point()> now_;
  mutable std::mutex mutex_;  // held for map operations only, never across a suspension
  std::map<std::string, CachedSession> sessions_;
  std::map<std::string, Rejection> rejections_;
  http::PerHostLimiter gates_{1};
};

}  // namespace ironhold::bmc::redfish

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
};

struct AuthBackoffOptions {
  std::chrono::seconds initial{15 * 60};
  std::chrono::seconds max{4 * 60 * 60};
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

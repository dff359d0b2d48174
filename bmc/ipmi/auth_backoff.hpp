#pragma once
// Credentials a BMC rejected are not tried again soon: BMCs lock accounts after a few failures,
// and a poll every 30 seconds would keep one locked for good. A rejected key (BMC + user +
// a hash of the secrets) is barred for a doubling backoff; new credentials make a new key, so a
// fixed password is tried at once.
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace ironhold::bmc::ipmi {

struct AuthBackoffOptions {
  std::chrono::seconds initial{15 * 60};
  std::chrono::seconds max{4 * 60 * 60};
};

class AuthBackoff {
 public:
  using Clock = std::chrono::steady_clock;

  explicit AuthBackoff(
      AuthBackoffOptions options = {},
      std::function<Clock::time_point()> now = [] { return Clock::now(); })
      : options_(options), now_(std::move(now)) {}

  // How long the key stays barred; nothing when it may be tried.
  std::optional<Clock::duration> barred_for(const std::string& key) const;
  void record_rejection(const std::string& key);
  void record_success(const std::string& key);

 private:
  struct Rejection {
    Clock::time_point until;
    Clock::duration next;
  };
  AuthBackoffOptions options_;
  std::function<Clock::time_point()> now_;
  mutable std::mutex mutex_;
  std::map<std::string, Rejection> rejections_;
};

}  // namespace ironhold::bmc::ipmi

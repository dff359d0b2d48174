#pragma once
// A pace learned from a host's refusals. Small BMCs (Supermicro's above all) refuse a burst of
// requests with 503, without a Retry-After saying for how long, and none documents a rate. So a
// host that refuses is paced from then on: 4 requests a second at first, half that after each
// further refusal (down to one every 2 s), and twice as fast as each 10 requests in a row succeed,
// until it is past any BMC's limit and the host runs unpaced again (additive increase would take
// minutes to get back from one refusal; a host near its limit swings between half and all of it).
// Hosts that never refuse cost one relaxed atomic load per request.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

namespace ironhold::bmc::http {

class RefusalThrottle {
 public:
  using Clock = std::chrono::steady_clock;

  static constexpr double first_rate = 4;      // requests a second after the first refusal
  static constexpr double slowest_rate = 0.5;  // the floor however often a host refuses
  static constexpr double free_rate = 64;      // a learned pace above this is dropped
  static constexpr unsigned successes_to_speed_up = 10;
  static constexpr double speed_up = 2;  // the rate's factor after that many
  // Attempts a refused request gets (the first included), against the client's usual 3: with its
  // backoff they span some 15 s, past any burst window a BMC keeps.
  static constexpr unsigned attempts_when_refused = 6;
  // The window a BMC counts a burst in, as far as anyone has seen: a second.
  static constexpr std::chrono::seconds refusal_window{1};

  // How long the next request to `host` waits for its turn (0: now), taking that turn.
  std::chrono::milliseconds reserve(const std::string& host, Clock::time_point now = Clock::now());
  // The host refused a request (503 or 429): slow it down.
  void refused(const std::string& host, Clock::time_point now = Clock::now());
  // The host answered a request: after enough of them in a row, speed it up again.
  void answered(const std::string& host);

  // The host's learned rate in requests a second; 0 when it is unpaced.
  double rate(const std::string& host) const;

 private:
  struct Learned {
    double per_second = first_rate;
    double tokens = 1;
    Clock::time_point updated{};
    Clock::time_point slowed{};  // when it was last slowed down
    unsigned successes = 0;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Learned> hosts_;
  std::atomic<std::size_t> paced_{0};  // hosts_.size(), read without the lock
};

}  // namespace ironhold::bmc::http

#pragma once
// A request rate per key (a cloud account): a token bucket holding up to `burst` requests,
// refilled at `per_second`. Requests beyond it are not refused but spaced out: each one reserves
// the next free slot and learns how long to wait for it, so a listing of many pages or a burst of
// actions on one account stays under what its provider allows (and under what the organisation
// wants Ironhold to spend of the account's shared quota), while other accounts are unaffected.
#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

namespace ironhold::bmc::http {

// What a request asks of the pacer (HttpRequest::pace).
struct Pace {
  std::string key;        // requests with the same key share one bucket
  double per_second = 0;  // 0: unpaced
  double burst = 1;       // requests that may go at once after a quiet spell
};

class RequestPacer {
 public:
  using Clock = std::chrono::steady_clock;

  // Takes one slot of `pace.key`'s bucket; returns how long to wait before sending (0: now).
  std::chrono::milliseconds reserve(const Pace& pace, Clock::time_point now = Clock::now());

 private:
  struct Bucket {
    double tokens = 0;  // may go negative: slots reserved ahead
    Clock::time_point updated{};
  };
  std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace ironhold::bmc::http

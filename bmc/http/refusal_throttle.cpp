#include "bmc/http/refusal_throttle.hpp"

#include <algorithm>
#include <cmath>

namespace ironhold::bmc::http {

std::chrono::milliseconds RefusalThrottle::reserve(const std::string& host, Clock::time_point now) {
  if (paced_.load(std::memory_order_relaxed) == 0) return std::chrono::milliseconds(0);
  std::lock_guard lock(mutex_);
  const auto it = hosts_.find(host);
  if (it == hosts_.end()) return std::chrono::milliseconds(0);
  Learned& l = it->second;
  const double elapsed = std::chrono::duration<double>(now - l.updated).count();
  l.tokens = std::min(1.0, l.tokens + std::max(0.0, elapsed) * l.per_second);
  l.updated = now;
  l.tokens -= 1;
  if (l.tokens >= 0) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(
      static_cast<long long>(std::ceil(-l.tokens / l.per_second * 1000.0)));
}

void RefusalThrottle::refused(const std::string& host, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto [it, fresh] = hosts_.try_emplace(host);
  Learned& l = it->second;
  if (fresh) {
    l.updated = now;
    l.tokens = 0;  // the refused request's retry waits its turn like any other
    l.slowed = now;
    paced_.store(hosts_.size(), std::memory_order_relaxed);
  } else if (now - l.slowed >= refusal_window) {
    // Refusals within a second of the last slow-down answer requests sent before it, into the
    // same full window: one burst slows the host once.
    l.per_second = std::max(slowest_rate, l.per_second / 2);
    l.slowed = now;
  }
  l.successes = 0;
}

void RefusalThrottle::answered(const std::string& host) {
  if (paced_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(mutex_);
  const auto it = hosts_.find(host);
  if (it == hosts_.end()) return;
  Learned& l = it->second;
  if (++l.successes < successes_to_speed_up) return;
  l.successes = 0;
  l.per_second *= speed_up;
  if (l.per_second > free_rate) {
    hosts_.erase(it);
    paced_.store(hosts_.size(), std::memory_order_relaxed);
  }
}

double RefusalThrottle::rate(const std::string& host) const {
  std::lock_guard lock(mutex_);
  const auto it = hosts_.find(host);
  return it == hosts_.end() ? 0 : it->second.per_second;
}

}  // namespace ironhold::bmc::http

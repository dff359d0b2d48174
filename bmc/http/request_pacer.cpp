#include "bmc/http/request_pacer.hpp"

#include <algorithm>
#include <cmath>

namespace ironhold::bmc::http {

std::chrono::milliseconds RequestPacer::reserve(const Pace& pace, Clock::time_point now) {
  if (pace.per_second <= 0) return std::chrono::milliseconds(0);
  const double burst = std::max(1.0, pace.burst);
  std::lock_guard lock(mutex_);
  auto [it, fresh] = buckets_.try_emplace(pace.key);
  Bucket& b = it->second;
  if (fresh) {
    b.tokens = burst;
  } else {
    const double elapsed = std::chrono::duration<double>(now - b.updated).count();
    b.tokens = std::min(burst, b.tokens + std::max(0.0, elapsed) * pace.per_second);
  }
  b.updated = now;
  b.tokens -= 1;
  if (b.tokens >= 0) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(
      static_cast<long long>(std::ceil(-b.tokens / pace.per_second * 1000.0)));
}

}  // namespace ironhold::bmc::http

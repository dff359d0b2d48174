#include "inventory/poller/poll_policy.hpp"

#include <algorithm>

namespace ironhold {

std::chrono::milliseconds next_poll_in(const PollIntervals& intervals, db::PollKind kind,
                                       const DriverOutcome& outcome, int failures, double uniform) {
  using std::chrono::milliseconds;
  milliseconds base{0};
  if (outcome.ok()) {
    switch (kind) {
      case db::PollKind::status:
        base = intervals.status;
        break;
      case db::PollKind::sensors:
        base = intervals.sensors;
        break;
      case db::PollKind::inventory:
        base = intervals.inventory;
        break;
    }
  } else if (outcome.error->code == DriverErrorCode::auth_failed) {
    base = intervals.auth_failed_backoff;
  } else {
    // failures + 1 consecutive failures now: 1 -> base, 2 -> 2 base, ... capped.
    const int doublings = std::clamp(failures, 0, 20);
    const auto grown = intervals.failure_backoff.count() * (1LL << doublings);
    base = milliseconds(std::min<long long>(grown, intervals.max_failure_backoff.count()));
    if (kind == db::PollKind::inventory) base = std::max(base, intervals.inventory_retry);
    if (kind == db::PollKind::status) base = std::max(base, intervals.status);
  }
  const double spread = std::clamp(intervals.jitter, 0.0, 1.0) * (2 * uniform - 1);
  return milliseconds(static_cast<long long>(static_cast<double>(base.count()) * (1 + spread)));
}

}  // namespace ironhold

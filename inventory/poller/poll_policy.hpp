#pragma once
// When a poll is due again: the interval of its kind, jittered so that a fleet enrolled at once
// spreads out, and backed off after failures so an unreachable BMC costs little and never delays
// the others. A BMC that refused the credentials waits longest: BMCs lock accounts.
#include <chrono>

#include "inventory/db/poll_store.hpp"

namespace ironhold {

struct PollIntervals {
  std::chrono::milliseconds status{30'000};
  std::chrono::milliseconds sensors{60'000};
  std::chrono::milliseconds inventory{24 * 3600 * 1000};
  double jitter = 0.1;                                // +-10 % of the interval
  std::chrono::milliseconds failure_backoff{30'000};  // after the first failure, doubling
  std::chrono::milliseconds max_failure_backoff{600'000};
  std::chrono::milliseconds auth_failed_backoff{3'600'000};  // until credentials change
  // A failed inspection is retried sooner than the daily one, but not in a loop.
  std::chrono::milliseconds inventory_retry{300'000};
};

// `uniform` is in [0, 1); `failures` counts the failures before this attempt.
std::chrono::milliseconds next_poll_in(const PollIntervals& intervals, db::PollKind kind,
                                       const DriverOutcome& outcome, int failures, double uniform);

}  // namespace ironhold

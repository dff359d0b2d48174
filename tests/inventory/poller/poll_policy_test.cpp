// When polls are due again: intervals, jitter, failure backoff and the long auth_failed wait.
#include "inventory/poller/poll_policy.hpp"

#include <catch2/catch.hpp>

// This file's names, apart from those of the other test files compiled with it.
namespace poll_policy_test {

using namespace ironhold;
using std::chrono::milliseconds;

namespace {

DriverOutcome failed(DriverErrorCode code) {
  DriverOutcome o;
  o.error = DriverError{code, "x"};
  return o;
}

}  // namespace

TEST_CASE("successful polls come back after their interval, jittered within bounds", "[poller]") {
  PollIntervals iv;
  iv.status = milliseconds(30'000);
  iv.jitter = 0.1;
  const DriverOutcome ok;
  CHECK(next_poll_in(iv, db::PollKind::status, ok, 0, 0.5) == milliseconds(30'000));
  CHECK(next_poll_in(iv, db::PollKind::status, ok, 0, 0.0) == milliseconds(27'000));
  CHECK(next_poll_in(iv, db::PollKind::status, ok, 0, 0.999999) >= milliseconds(32'999));
  CHECK(next_poll_in(iv, db::PollKind::sensors, ok, 0, 0.5) == iv.sensors);
  CHECK(next_poll_in(iv, db::PollKind::inventory, ok, 3, 0.5) == iv.inventory);
}

TEST_CASE("failures back off exponentially up to a cap, auth failures wait longest", "[poller]") {
  PollIntervals iv;
  iv.jitter = 0;
  iv.failure_backoff = milliseconds(10'000);
  iv.max_failure_backoff = milliseconds(300'000);
  iv.status = milliseconds(30'000);
  const auto down = failed(DriverErrorCode::unreachable);
  CHECK(next_poll_in(iv, db::PollKind::sensors, down, 0, 0.5) == milliseconds(10'000));
  CHECK(next_poll_in(iv, db::PollKind::sensors, down, 1, 0.5) == milliseconds(20'000));
  CHECK(next_poll_in(iv, db::PollKind::sensors, down, 2, 0.5) == milliseconds(40'000));
  CHECK(next_poll_in(iv, db::PollKind::sensors, down, 50, 0.5) == milliseconds(300'000));
  // Never sooner than the normal interval for status.
  CHECK(next_poll_in(iv, db::PollKind::status, down, 0, 0.5) == milliseconds(30'000));
  CHECK(next_poll_in(iv, db::PollKind::inventory, down, 0, 0.5) == iv.inventory_retry);
  CHECK(next_poll_in(iv, db::PollKind::status, failed(DriverErrorCode::auth_failed), 0, 0.5) ==
        iv.auth_failed_backoff);
}

}  // namespace poll_policy_test

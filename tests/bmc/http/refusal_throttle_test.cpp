// The pace learned from a host's refusals: nothing until a host refuses, then a rate that halves
// with each refusal and grows back with answers until the host runs unpaced again.
#include "bmc/http/refusal_throttle.hpp"

#include <catch2/catch.hpp>

// This file's names, apart from those of the other test files compiled with it.
namespace refusal_throttle_test {

using ironhold::bmc::http::RefusalThrottle;
using namespace std::chrono_literals;

TEST_CASE("a host that refused is paced, slower with each refusal, faster with answers",
          "[http][throttle]") {
  RefusalThrottle throttle;
  const auto t0 = RefusalThrottle::Clock::time_point{} + 1h;
  // A host that never refused never waits, however fast it is asked.
  for (int i = 0; i < 100; ++i) CHECK(throttle.reserve("bmc-a:443", t0) == 0ms);
  CHECK(throttle.rate("bmc-a:443") == 0);

  throttle.refused("bmc-a:443", t0);
  const double first = throttle.rate("bmc-a:443");
  CHECK(first == RefusalThrottle::first_rate);
  // The retry of the refused request waits its turn; the next ones are spaced at the rate.
  const auto spacing = std::chrono::milliseconds(static_cast<long long>(1000 / first));
  CHECK(throttle.reserve("bmc-a:443", t0) == spacing);
  CHECK(throttle.reserve("bmc-a:443", t0) == 2 * spacing);
  // Other hosts are not slowed.
  CHECK(throttle.reserve("bmc-b:443", t0) == 0ms);

  // Refusals of requests sent into the same full second slow it once.
  throttle.refused("bmc-a:443", t0 + 500ms);
  CHECK(throttle.rate("bmc-a:443") == first);
  throttle.refused("bmc-a:443", t0 + 1s);
  CHECK(throttle.rate("bmc-a:443") == first / 2);
  for (int i = 0; i < 10; ++i) throttle.refused("bmc-a:443", t0 + 2s + i * 1s);
  CHECK(throttle.rate("bmc-a:443") == RefusalThrottle::slowest_rate);

  // Answers in a row speed it up again, until it is unpaced.
  double rate = throttle.rate("bmc-a:443");
  for (unsigned i = 0; i + 1 < RefusalThrottle::successes_to_speed_up; ++i)
    throttle.answered("bmc-a:443");
  CHECK(throttle.rate("bmc-a:443") == rate);
  throttle.answered("bmc-a:443");
  CHECK(throttle.rate("bmc-a:443") > rate);
  // Two more rounds, so that halving it stays above the floor.
  for (unsigned i = 0; i < 2 * RefusalThrottle::successes_to_speed_up; ++i)
    throttle.answered("bmc-a:443");
  rate = throttle.rate("bmc-a:443");
  REQUIRE(rate / 2 > RefusalThrottle::slowest_rate);
  // A refusal in between starts the count again.
  for (unsigned i = 0; i + 1 < RefusalThrottle::successes_to_speed_up; ++i)
    throttle.answered("bmc-a:443");
  throttle.refused("bmc-a:443", t0 + 20s);
  CHECK(throttle.rate("bmc-a:443") == rate / 2);
  for (int i = 0; i < 10'000 && throttle.rate("bmc-a:443") > 0; ++i) throttle.answered("bmc-a:443");
  CHECK(throttle.rate("bmc-a:443") == 0);
  CHECK(throttle.reserve("bmc-a:443", t0 + 20s) == 0ms);
}

}  // namespace refusal_throttle_test

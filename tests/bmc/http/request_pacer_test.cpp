// The per-account request rate: a token bucket that spaces requests out instead of refusing them.
#include "bmc/http/request_pacer.hpp"

#include <catch2/catch.hpp>

// This file's names, apart from those of the other test files compiled with it.
namespace request_pacer_test {

using ironhold::bmc::http::Pace;
using ironhold::bmc::http::RequestPacer;
using namespace std::chrono_literals;

TEST_CASE("a paced key lets a burst through, then spaces requests at its rate", "[http][pace]") {
  RequestPacer pacer;
  const auto t0 = RequestPacer::Clock::time_point{} + 1h;
  const Pace pace{"account-a", 10, 2};  // 10 a second, 2 at once
  CHECK(pacer.reserve(pace, t0) == 0ms);
  CHECK(pacer.reserve(pace, t0) == 0ms);
  // Reserved ahead: each further request at the same instant waits one more tenth of a second.
  CHECK(pacer.reserve(pace, t0) == 100ms);
  CHECK(pacer.reserve(pace, t0) == 200ms);
  // Other keys have their own bucket; an unpaced request never waits.
  CHECK(pacer.reserve({"account-b", 10, 2}, t0) == 0ms);
  CHECK(pacer.reserve({"account-a", 0, 1}, t0) == 0ms);
  // A quiet second refills the bucket, never beyond its burst.
  CHECK(pacer.reserve(pace, t0 + 1300ms) == 0ms);
  CHECK(pacer.reserve(pace, t0 + 1300ms) == 0ms);
  CHECK(pacer.reserve(pace, t0 + 1300ms) == 100ms);
}

TEST_CASE("a slow rate spaces every request after the first", "[http][pace]") {
  RequestPacer pacer;
  const auto t0 = RequestPacer::Clock::time_point{} + 1h;
  const Pace pace{"slow", 0.5, 1};  // one every two seconds
  CHECK(pacer.reserve(pace, t0) == 0ms);
  CHECK(pacer.reserve(pace, t0 + 500ms) == 1500ms);
  CHECK(pacer.reserve(pace, t0 + 10s) == 0ms);
}

}  // namespace request_pacer_test

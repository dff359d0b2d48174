// Due polls of failing BMCs wait while many polls of working BMCs run
// (PollerOptions::failing_wait_max): when a sweep falls due at once, the broken BMCs come after
// the working ones instead of beside them, but never wait longer than failing_wait_max.
#include <boost/asio/thread_pool.hpp>
#include <catch2/catch.hpp>
#include <thread>

#include "bmc/redfish/redfish_driver.hpp"
#include "inventory/poller/poller.hpp"
#include "tests/app/poller_test_fleet.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace poll_failing_wait_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;

constexpr std::size_t kWorking = 4, kFailing = 2;

struct Sweep {
  // Whether a failing BMC was asked anything within the window (while no working BMC's poll could
  // have ended), and before any working BMC's poll had been recorded.
  bool failing_asked_in_window = false;
  bool failing_asked_before_working = false;
  std::size_t failing_asked_at_end = 0;
  std::string finished_at_end;
};

// Four working BMCs that answer each request after `latency` and two failing ones that reset
// every connection, all of their status polls due at once; watched until `window` has passed and
// then until every poll has been recorded.
Sweep sweep(std::chrono::milliseconds failing_wait_max, unsigned latency_ms,
            std::chrono::milliseconds window) {
  sim::RedfishFleet fleet(compute_server_fleet(kWorking + kFailing));
  fleet.start();
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  for (std::size_t i = 0; i < kWorking + kFailing; ++i) {
    const bool failing = i >= kWorking;
    enroll_simulated(server, fleet, i, (failing ? "failing-" : "working-") + std::to_string(i));
    if (failing)
      fleet.set_faults(i, {.reset_connections = true});
    else
      fleet.set_faults(i, {.latency_ms = latency_ms});
  }
  auto& db = server.database();
  db.execute("UPDATE poll_schedule SET next_due = now() + interval '1 day' WHERE kind <> 'status'");
  db.execute(
      "UPDATE poll_schedule s SET next_due = now(), "
      "       failures = CASE WHEN n.name LIKE 'failing-%' THEN 1 ELSE 0 END "
      "  FROM nodes n WHERE n.id = s.node_id AND s.kind = 'status'");

  boost::asio::thread_pool pool(2);
  bmc::redfish::RedfishDriver driver(server.host().io_executor(), {});
  PollerOptions options;
  options.intervals.status = 1h;  // polled once
  options.idle_wait = 50ms;
  options.flush_interval = 20ms;
  options.slow_after = 0ms;   // the working polls stay counted however long they wait
  options.max_in_flight = 8;  // room for all six: only the waiting keeps the failing ones out
  options.failing_wait_max = failing_wait_max;
  Poller poller(server.host().io_executor(), pool, server.host().polls(), {{"redfish", &driver}},
                options);
  const auto failing_asked = [&] {
    std::size_t n = 0;
    for (std::size_t i = kWorking; i < kWorking + kFailing; ++i)
      n += fleet.state(i).counters().requests_received > 0;
    return n;
  };
  const auto finished = [&] {
    return db.execute(
        "SELECT count(*) FROM poll_schedule WHERE kind = 'status' AND last_finished IS NOT NULL");
  };
  // Working polls recorded: none can be before `latency` has passed since it started.
  const auto working_finished = [&] {
    return db.execute(
        "SELECT count(*) FROM poll_schedule s JOIN nodes n ON n.id = s.node_id "
        " WHERE s.kind = 'status' AND s.last_finished IS NOT NULL AND n.name LIKE 'working-%'");
  };
  Sweep out;
  const auto started = std::chrono::steady_clock::now();
  poller.start();
  // Watched for `window` (no working poll can have ended by then, however loaded the machine:
  // each waits `latency` after it started), and on until a working poll is recorded: a failing
  // BMC asked before that was asked beside the working ones. The recording is read first, so a
  // request seen is never older than the recording it is compared with.
  for (;;) {
    const bool working_done = working_finished() != "0";
    const bool asked = failing_asked() > 0;
    const auto now = std::chrono::steady_clock::now();
    if (asked && now < started + window) out.failing_asked_in_window = true;
    if (asked && !working_done) out.failing_asked_before_working = true;
    if (now >= started + 60s) break;
    if (now >= started + window && (working_done || out.failing_asked_before_working)) break;
    std::this_thread::sleep_for(10ms);
  }
  const auto until = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < until &&
         finished() != std::to_string(kWorking + kFailing))
    std::this_thread::sleep_for(20ms);
  out.failing_asked_at_end = failing_asked();
  out.finished_at_end = finished();
  poller.stop(10s);
  server.stop();  // a poll still waiting on its BMC ends with the I/O threads, before the driver
  pool.join();
  return out;
}

TEST_CASE("polls of failing BMCs wait until the working BMCs' polls are nearly done",
          "[app][poller]") {
  // No working BMC answers anything before 1.5 s, so within the first 1.2 s all four of their
  // polls are in flight, above a quarter of max_in_flight.
  const Sweep waiting = sweep(60s, 1500, 1200ms);
  CHECK_FALSE(waiting.failing_asked_in_window);
  CHECK(waiting.failing_asked_at_end == kFailing);  // and then polled
  CHECK(waiting.finished_at_end == std::to_string(kWorking + kFailing));
  // Without the wait they start beside the working ones, with the same room in flight.
  const Sweep not_waiting = sweep(0ms, 1500, 1200ms);
  CHECK(not_waiting.failing_asked_before_working);
  CHECK(not_waiting.finished_at_end == std::to_string(kWorking + kFailing));
}

TEST_CASE("polls of failing BMCs wait no longer than failing_wait_max", "[app][poller]") {
  // The working BMCs take at least 4 s to answer; the failing ones are asked after 300 ms.
  const Sweep capped = sweep(300ms, 4000, 3500ms);
  CHECK(capped.failing_asked_before_working);
  CHECK(capped.failing_asked_at_end == kFailing);
  CHECK(capped.finished_at_end == std::to_string(kWorking + kFailing));
}

}  // namespace poll_failing_wait_test

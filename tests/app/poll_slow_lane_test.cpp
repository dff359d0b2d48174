// The poller's slow lane: a poll still waiting after slow_after, or one waiting out a retry's
// backoff, stops counting against max_in_flight, so BMCs that stopped answering cannot hold every
// slot while healthy ones wait. Two broken BMCs are made due first and the poller may run one poll
// at a time: with the slow lane the healthy BMCs are polled while the broken ones still wait;
// without it (slow_after 0) they wait behind them. Silent BMCs' polls end at the driver's request
// timeout, resetting BMCs' after their retry's backoff.
#include <boost/asio/thread_pool.hpp>
#include <catch2/catch.hpp>
#include <thread>

#include "bmc/redfish/redfish_driver.hpp"
#include "inventory/poller/poller.hpp"
#include "tests/app/poller_test_fleet.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace poll_slow_lane_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;

namespace {

struct SlowLaneRun {
  bool all_recorded = false;
  bool healthy_before_broken = false;  // every healthy poll finished before any broken one
  std::size_t most_counted = 0;        // polls counted against max_in_flight, at most
  std::size_t most_slow = 0;           // polls in the slow lane, at most
};

struct BrokenBmcs {
  sim::redfish::Faults faults;
  unsigned max_attempts = 1;
  std::chrono::milliseconds backoff{0};  // before the retry, without jitter
};

const BrokenBmcs kSilent{.faults = {.timeout = true}};
// Each attempt fails at once; the one retry comes 3 s later.
const BrokenBmcs kResetting{
    .faults = {.reset_connections = true}, .max_attempts = 2, .backoff = 3s};

SlowLaneRun poll_two_broken_two_healthy(const BrokenBmcs& broken,
                                        std::chrono::milliseconds slow_after) {
  sim::RedfishFleet fleet(compute_server_fleet(4));
  fleet.start();
  // The service only for its database and API: the poller under test is the one below.
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  for (std::size_t i = 0; i < 4; ++i)
    enroll_simulated(server, fleet, i, (i < 2 ? "broken-" : "healthy-") + std::to_string(i));
  fleet.set_faults(0, broken.faults);
  fleet.set_faults(1, broken.faults);
  // Status polls only, the broken BMCs' due first (the claim takes the longest overdue).
  server.database().execute(
      "UPDATE poll_schedule SET next_due = now() + interval '1 day' WHERE kind <> 'status'");
  server.database().execute(
      "UPDATE poll_schedule s SET next_due = now() - CASE WHEN n.name LIKE 'broken-%' "
      "THEN interval '1 hour' ELSE interval '1 minute' END FROM nodes n "
      "WHERE n.id = s.node_id AND s.kind = 'status'");

  boost::asio::thread_pool pool(2);
  bmc::redfish::RedfishDriverOptions driver_options;
  driver_options.transport.total_timeout = 4s;
  driver_options.http.retry.max_attempts = broken.max_attempts;
  driver_options.http.retry.base_delay = broken.backoff;
  driver_options.http.retry.max_delay = broken.backoff;
  driver_options.http.retry.jitter = 0;
  bmc::redfish::RedfishDriver driver(server.host().io_executor(), driver_options);
  PollerOptions options;
  options.intervals.status = 1h;  // each node polled once
  options.idle_wait = 100ms;
  options.flush_interval = 50ms;
  options.max_in_flight = 1;
  options.slow_after = slow_after;
  options.max_slow = 2;
  Poller poller(server.host().io_executor(), pool, server.host().polls(), {{"redfish", &driver}},
                options);
  poller.start();

  SlowLaneRun run;
  const auto until = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < until) {
    const std::size_t slow = poller.metrics().slow_in_flight();
    run.most_slow = std::max(run.most_slow, slow);
    run.most_counted = std::max(run.most_counted, poller.metrics().in_flight() - slow);
    if (server.database().execute("SELECT count(*) FROM poll_schedule "
                                  "WHERE kind = 'status' AND last_finished IS NULL") == "0") {
      run.all_recorded = true;
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  fleet.clear_faults(0);
  fleet.clear_faults(1);
  poller.stop(30s);
  server.stop();  // a poll still waiting on its BMC ends with the I/O threads, before the driver
  pool.join();
  run.healthy_before_broken =
      server.database().execute(
          "SELECT max(s.last_finished) FILTER (WHERE n.name LIKE 'healthy-%') < "
          "       min(s.last_finished) FILTER (WHERE n.name LIKE 'broken-%') "
          "FROM poll_schedule s JOIN nodes n ON n.id = s.node_id WHERE s.kind = 'status'") == "t";
  return run;
}

// With the slow lane: both broken polls left the one slot, and the healthy ones went first.
void expect_healthy_first(const SlowLaneRun& run) {
  CHECK(run.all_recorded);
  CHECK(run.healthy_before_broken);
  CHECK(run.most_counted <= 1);
  CHECK(run.most_slow == 2);
}

// Without it: the healthy polls waited behind the broken ones for the one slot.
void expect_healthy_behind(const SlowLaneRun& run) {
  CHECK(run.all_recorded);
  CHECK_FALSE(run.healthy_before_broken);
  CHECK(run.most_counted <= 1);
  CHECK(run.most_slow == 0);
}

}  // namespace

TEST_CASE("polls of silent BMCs move to the slow lane: the healthy ones do not wait behind them",
          "[app][poller]") {
  const SlowLaneRun run = poll_two_broken_two_healthy(kSilent, 300ms);
  expect_healthy_first(run);
}

TEST_CASE("without the slow lane, healthy BMCs wait behind silent ones for the one slot",
          "[app][poller]") {
  const SlowLaneRun run = poll_two_broken_two_healthy(kSilent, 0ms);
  expect_healthy_behind(run);
}

TEST_CASE("a poll waiting out a retry's backoff joins the slow lane at once", "[app][poller]") {
  // slow_after is far longer than the backoff: only the wait itself can free the slot.
  const SlowLaneRun run = poll_two_broken_two_healthy(kResetting, 1h);
  expect_healthy_first(run);
}

TEST_CASE("without the slow lane, a poll in a retry's backoff keeps its slot", "[app][poller]") {
  const SlowLaneRun run = poll_two_broken_two_healthy(kResetting, 0ms);
  expect_healthy_behind(run);
}

}  // namespace poll_slow_lane_test

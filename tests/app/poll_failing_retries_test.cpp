// Polls of failing BMCs. The poller tells a driver how many polls of a kind failed in a row before
// this one, and the Redfish driver retries within a poll only for a BMC that was working: for one
// already failing, the next poll is the retry (counted at the simulated BMC, which resets every
// connection once it has read a request, so each attempt is one request and one TLS handshake).
// And at most max_failing polls of failing BMCs run at once.
#include <algorithm>
#include <boost/asio/thread_pool.hpp>
#include <catch2/catch.hpp>
#include <thread>

#include "bmc/redfish/redfish_driver.hpp"
#include "inventory/poller/poller.hpp"
#include "tests/app/poller_test_fleet.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace poll_failing_retries_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;

TEST_CASE("a poll of a BMC whose last poll failed makes one attempt, not the client's three",
          "[app][poller]") {
  sim::RedfishFleet fleet(compute_server_fleet(1));
  fleet.start();
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  enroll_simulated(server, fleet, 0, "resetting");
  fleet.set_faults(0, {.reset_connections = true});
  auto& db = server.database();
  db.execute("UPDATE poll_schedule SET next_due = now() + interval '1 day' WHERE kind <> 'status'");
  db.execute(
      "UPDATE poll_schedule SET next_due = now() + interval '1 day', failures = 0 "
      "WHERE kind = 'status'");

  boost::asio::thread_pool pool(2);
  bmc::redfish::RedfishDriverOptions driver_options;
  driver_options.http.retry.max_attempts = 3;
  driver_options.http.retry.base_delay = 1ms;
  driver_options.http.retry.max_delay = 2ms;
  bmc::redfish::RedfishDriver driver(server.host().io_executor(), driver_options);
  PollerOptions options;
  options.intervals.status = 1h;  // polled once each time the test makes it due
  options.idle_wait = 50ms;
  options.flush_interval = 20ms;
  Poller poller(server.host().io_executor(), pool, server.host().polls(), {{"redfish", &driver}},
                options);

  // Requests the BMC received during one status poll, made due now, until it is recorded.
  const auto requests_of_one_poll = [&](int failures_before) {
    REQUIRE(db.execute("SELECT failures FROM poll_schedule WHERE kind = 'status'") ==
            std::to_string(failures_before));
    const unsigned before = fleet.state(0).counters().requests_received;
    const std::string finished = db.execute(
        "SELECT coalesce(last_finished::text, '') FROM poll_schedule "
        "WHERE kind = 'status'");
    db.execute("UPDATE poll_schedule SET next_due = now() WHERE kind = 'status'");
    const auto until = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < until &&
           db.execute("SELECT coalesce(last_finished::text, '') FROM poll_schedule "
                      "WHERE kind = 'status'") == finished)
      std::this_thread::sleep_for(20ms);
    return fleet.state(0).counters().requests_received - before;
  };
  poller.start();
  const unsigned working = requests_of_one_poll(0);
  const unsigned failing = requests_of_one_poll(1);
  const unsigned still_failing = requests_of_one_poll(2);
  poller.stop(10s);
  server.stop();  // a poll still waiting on its BMC ends with the I/O threads, before the driver
  pool.join();
  CHECK(failing >= 1);
  CHECK(working == 3 * failing);
  CHECK(still_failing == failing);
  CHECK(db.execute("SELECT failures FROM poll_schedule WHERE kind = 'status'") == "3");
}

TEST_CASE("at most max_failing polls of failing BMCs run at once", "[app][poller]") {
  constexpr std::size_t kSilent = 4;
  sim::RedfishFleet fleet(compute_server_fleet(kSilent));
  fleet.start();
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  for (std::size_t i = 0; i < kSilent; ++i) {
    enroll_simulated(server, fleet, i, "silent-" + std::to_string(i));
    fleet.set_faults(i, {.timeout = true});
  }
  auto& db = server.database();
  db.execute("UPDATE poll_schedule SET next_due = now() + interval '1 day' WHERE kind <> 'status'");
  db.execute("UPDATE poll_schedule SET next_due = now(), failures = 1 WHERE kind = 'status'");

  boost::asio::thread_pool pool(2);
  bmc::redfish::RedfishDriverOptions driver_options;
  // No poll can end before this, so until then no more than max_failing BMCs may have been asked,
  // however slowly a loaded machine connects them (the poll's end is not watched in the database:
  // the next poll may reach its BMC before the poller has written the last one's result).
  constexpr auto kSilence = 4s;
  driver_options.transport.total_timeout = kSilence;
  bmc::redfish::RedfishDriver driver(server.host().io_executor(), driver_options);
  PollerOptions options;
  options.intervals.status = 1h;
  options.idle_wait = 50ms;
  options.flush_interval = 20ms;
  options.slow_after = 0ms;  // no slow lane: every silent poll stays a failing one in flight
  options.max_failing = 2;
  Poller poller(server.host().io_executor(), pool, server.host().polls(), {{"redfish", &driver}},
                options);
  const auto asked = [&] {
    std::size_t n = 0;
    for (std::size_t i = 0; i < kSilent; ++i) n += fleet.state(i).counters().requests_received > 0;
    return n;
  };
  const auto finished = [&] {
    return db.execute(
        "SELECT count(*) FROM poll_schedule WHERE kind = 'status' AND last_finished IS NOT NULL");
  };
  const auto started = std::chrono::steady_clock::now();
  poller.start();
  std::size_t most_asked = 0;
  while (std::chrono::steady_clock::now() < started + kSilence - 500ms) {
    most_asked = std::max(most_asked, asked());
    std::this_thread::sleep_for(10ms);
  }
  CHECK(most_asked == 2);
  CHECK(finished() == "0");
  // Then the other two, as the first ones give up.
  const auto until = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < until && finished() != std::to_string(kSilent))
    std::this_thread::sleep_for(20ms);
  CHECK(asked() == kSilent);
  CHECK(finished() == std::to_string(kSilent));
  poller.stop(10s);
  server.stop();  // a poll still waiting on its BMC ends with the I/O threads, before the driver
  pool.join();
}

}  // namespace poll_failing_retries_test

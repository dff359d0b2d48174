// A BMC whose last status poll outlasted slow_after starts its next one in the slow lane, instead
// of holding one of max_in_flight's slots until slow_after has passed. One slot, a slow BMC
// claimed first: a working BMC behind it is polled at once when the slow one is known to be slow,
// and only after slow_after when nothing is known of it yet.
#include <boost/asio/thread_pool.hpp>
#include <catch2/catch.hpp>
#include <thread>

#include "bmc/redfish/redfish_driver.hpp"
#include "inventory/poller/poller.hpp"
#include "tests/app/poller_test_fleet.hpp"
#include "tests/support/eventually.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace poll_known_slow_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;

constexpr auto kSlowAfter = 3s;

// How long after the poller's start the working BMC was first asked anything (60 s: never).
std::chrono::milliseconds working_asked_after(std::optional<int> slow_last_duration_ms) {
  sim::RedfishFleet fleet(compute_server_fleet(2));
  fleet.start();
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  enroll_simulated(server, fleet, 0, "slow");
  enroll_simulated(server, fleet, 1, "working");
  fleet.set_faults(0, {.latency_ms = 6000});  // its poll cannot end before 6 s
  auto& db = server.database();
  db.execute("UPDATE poll_schedule SET next_due = now() + interval '1 day' WHERE kind <> 'status'");
  // The slow BMC first in line, with what its last poll took, if anything.
  db.execute(
      "UPDATE poll_schedule s SET failures = 0, "
      "       next_due = now() - CASE WHEN n.name = 'slow' THEN interval '1 minute' "
      "                               ELSE interval '1 second' END, "
      "       last_duration_ms = CASE WHEN n.name = 'slow' THEN " +
      (slow_last_duration_ms ? std::to_string(*slow_last_duration_ms) : std::string("NULL")) +
      "::double precision END FROM nodes n WHERE n.id = s.node_id AND s.kind = 'status'");

  boost::asio::thread_pool pool(2);
  bmc::redfish::RedfishDriver driver(server.host().io_executor(), {});
  PollerOptions options;
  options.intervals.status = 1h;
  options.idle_wait = 50ms;
  options.flush_interval = 20ms;
  options.max_in_flight = 1;
  options.claim_batch = 1;  // one poll a claim: the slow one first
  options.slow_after = kSlowAfter;
  Poller poller(server.host().io_executor(), pool, server.host().polls(), {{"redfish", &driver}},
                options);
  const auto started = std::chrono::steady_clock::now();
  poller.start();
  auto asked_after = 60000ms;
  while (std::chrono::steady_clock::now() < started + 60s) {
    if (fleet.state(1).counters().requests_received > 0) {
      asked_after = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - started);
      break;
    }
    std::this_thread::sleep_for(10ms);
  }
  // The slow one was claimed too: in the slow lane its first request may still be on its way
  // (connecting, logging in) when the working one is asked, as on a loaded CI machine.
  CHECK(eventually([&] { return fleet.state(0).counters().requests_received > 0; }, 10s));
  poller.stop(10s);
  server.stop();  // a poll still waiting on its BMC ends with the I/O threads, before the driver
  pool.join();
  return asked_after;
}

TEST_CASE("a BMC known to be slow starts in the slow lane and holds no slot", "[app][poller]") {
  CHECK(working_asked_after(6000) < kSlowAfter - 1s);
}

TEST_CASE("a BMC not yet known to be slow holds its slot until slow_after", "[app][poller]") {
  CHECK(working_asked_after(std::nullopt) >= kSlowAfter);
  CHECK(working_asked_after(100) >= kSlowAfter);  // known to be quick
}

}  // namespace poll_known_slow_test

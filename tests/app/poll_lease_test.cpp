// Two pollers (as two instances would run them: each its own driver, lease owner and thread pool)
// on one database and one BMC that answers after longer than the lease. The poller renews the
// leases of its polls in flight, so the other never claims that BMC's poll while it runs: at no
// moment are two polls of it in flight, and no lease is lost. Without the renewal the second
// poller would take the poll over as soon as the lease ran out, while the first still waited.
#include <boost/asio/thread_pool.hpp>
#include <catch2/catch.hpp>
#include <set>
#include <thread>

#include "bmc/redfish/redfish_driver.hpp"
#include "inventory/poller/poller.hpp"
#include "tests/app/poller_test_fleet.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace poll_lease_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;

TEST_CASE("a poll that outlives its lease keeps it: another poller never polls that BMC meanwhile",
          "[app][poller][scale-out]") {
  sim::RedfishFleet fleet(compute_server_fleet(1));
  fleet.start();
  // The service only for its database and API: the pollers under test are the two below.
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  enroll_simulated(server, fleet, 0, "slow-bmc");
  // Only status polls, so that what is in flight is one node's one kind of poll.
  server.database().execute(
      "UPDATE poll_schedule SET next_due = now() + interval '1 day' WHERE kind <> 'status'");
  fleet.set_faults(0, {.latency_ms = 4000});  // every request: longer than the 3 s lease

  boost::asio::thread_pool pool(2);
  bmc::redfish::RedfishDriver driver_a(server.host().io_executor());
  bmc::redfish::RedfishDriver driver_b(server.host().io_executor());
  PollerOptions options;
  options.intervals.status = 1s;
  options.lease = 3s;
  options.idle_wait = 100ms;
  options.flush_interval = 50ms;
  options.owner = "poller-a";
  Poller a(server.host().io_executor(), pool, server.host().polls(), {{"redfish", &driver_a}},
           options);
  options.owner = "poller-b";
  Poller b(server.host().io_executor(), pool, server.host().polls(), {{"redfish", &driver_b}},
           options);
  a.start();
  b.start();

  // Until four polls are recorded (each takes four seconds or more), watching what is in flight.
  std::size_t most_in_flight = 0;
  std::set<std::string> recorded;
  const auto until = std::chrono::steady_clock::now() + 180s;
  for (int round = 0; recorded.size() < 4 && std::chrono::steady_clock::now() < until; ++round) {
    most_in_flight = std::max(most_in_flight, a.metrics().in_flight() + b.metrics().in_flight());
    if (round % 10 == 0) {
      const std::string finished = server.database().execute(
          "SELECT last_finished::text FROM poll_schedule WHERE kind = 'status'");
      if (!finished.empty()) recorded.insert(finished);
    }
    std::this_thread::sleep_for(50ms);
  }
  // The poll in flight finishes before its poller and driver go (the service's io threads would
  // otherwise resume it after them).
  fleet.clear_faults(0);
  a.stop(60s);
  b.stop(60s);
  pool.join();

  CHECK(recorded.size() >= 4);
  CHECK(most_in_flight == 1);
  CHECK(a.metrics().leases_lost() == 0);
  CHECK(b.metrics().leases_lost() == 0);
}

}  // namespace poll_lease_test

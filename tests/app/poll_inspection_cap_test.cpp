// The poller's cap on inspections: at most max_inspections inventory polls run at once, whatever
// room max_in_flight leaves, and the status polls due with them are not held back. Four BMCs are
// made due for an inspection and a status poll each; every simulated answer waits 20 ms, so that
// uncapped inspections (a few dozen documents each) overlap.
#include <boost/asio/thread_pool.hpp>
#include <catch2/catch.hpp>
#include <thread>

#include "bmc/redfish/redfish_driver.hpp"
#include "inventory/poller/poller.hpp"
#include "tests/app/poller_test_fleet.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace poll_inspection_cap_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;

namespace {

struct CapRun {
  bool all_recorded = false;
  std::size_t most_inspecting = 0;       // inventory polls in flight at once, at most
  bool status_before_inventory = false;  // every status poll ended before the last inspection
};

CapRun inspect_four(std::size_t max_inspections) {
  sim::RedfishFleet fleet(compute_server_fleet(4));
  fleet.start();
  // The service only for its database and API: the poller under test is the one below.
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  for (std::size_t i = 0; i < 4; ++i) {
    enroll_simulated(server, fleet, i, "node-" + std::to_string(i));
    fleet.set_faults(i, {.latency_ms = 20});
  }
  auto& db = server.database();
  db.execute(
      "UPDATE poll_schedule SET next_due = now() + interval '1 day', last_finished = NULL "
      "WHERE kind = 'sensors'");
  db.execute(
      "UPDATE poll_schedule SET next_due = now() - interval '1 minute', last_finished = NULL "
      "WHERE kind IN ('inventory', 'status')");

  boost::asio::thread_pool pool(2);
  bmc::redfish::RedfishDriver driver(server.host().io_executor(), {});
  PollerOptions options;
  options.intervals.status = 1h;  // each node polled once
  options.intervals.inventory = 1h;
  options.idle_wait = 50ms;
  options.flush_interval = 20ms;
  options.max_in_flight = 10;
  options.max_inspections = max_inspections;
  Poller poller(server.host().io_executor(), pool, server.host().polls(), {{"redfish", &driver}},
                options);
  poller.start();

  CapRun run;
  const auto until = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < until) {
    run.most_inspecting = std::max(run.most_inspecting, poller.metrics().inspecting());
    if (db.execute("SELECT count(*) FROM poll_schedule WHERE kind IN ('inventory', 'status') "
                   "AND last_finished IS NULL") == "0") {
      run.all_recorded = true;
      break;
    }
    std::this_thread::sleep_for(5ms);
  }
  poller.stop(30s);
  server.stop();  // a poll still waiting on its BMC ends with the I/O threads, before the driver
  pool.join();
  run.status_before_inventory = db.execute(
                                    "SELECT max(last_finished) FILTER (WHERE kind = 'status') < "
                                    "       max(last_finished) FILTER (WHERE kind = 'inventory') "
                                    "FROM poll_schedule") == "t";
  return run;
}

}  // namespace

TEST_CASE("at most max_inspections inventory polls run at once", "[app][poller]") {
  const CapRun run = inspect_four(1);
  CHECK(run.all_recorded);
  CHECK(run.most_inspecting == 1);
  CHECK(run.status_before_inventory);
}

TEST_CASE("without a cap of their own, inspections fill the room max_in_flight leaves",
          "[app][poller]") {
  const CapRun run = inspect_four(0);
  CHECK(run.all_recorded);
  CHECK(run.most_inspecting > 1);
}

}  // namespace poll_inspection_cap_test

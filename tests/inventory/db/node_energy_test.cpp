// record_node_power() (migration 0033) against an integration the test does itself: readings at
// chosen times, across an hour boundary, with a gap past 15 minutes (no energy for it), and one
// arriving late (older than the last, so it changes nothing). The expected watt-seconds per hour
// are summed here from the readings, each held until the next.
#include <catch2/catch.hpp>
#include <map>
#include <pqxx/pqxx>

#include "inventory/util/time.hpp"
#include "tests/support/test_database.hpp"

namespace node_energy_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;

TEST_CASE("a node's input power adds up to its energy per hour, held until the next reading",
          "[db][energy]") {
  TestDatabase database;
  pqxx::connection c(database.owner_url());
  const SystemTime t0 = *parse_rfc3339("2026-11-02T09:58:00Z");
  // (seconds after t0, watts)
  const std::vector<std::pair<int, double>> readings = {
      {0, 1000},    {60, 1200},   {180, 1100}, {300, 900},  // 09:58 .. 10:03, across 10:00
      {1800, 950},                                          // 25 minutes later: a gap, no energy
      {1860, 1000}, {3720, 1300},                           // 31 minutes later: too long a gap too
      {3780, 1250}, {3840, 1250}};
  const std::string node = "00000000-0000-0000-0000-0000000000e1";
  {
    pqxx::work tx(c);
    for (const auto& [seconds, watts] : readings)
      tx.exec_params("SELECT record_node_power($1::uuid, $2::timestamptz, $3, 'test')", node,
                     format_rfc3339(t0 + std::chrono::seconds(seconds)), watts);
    // Late: older than the last reading; nothing changes.
    tx.exec_params("SELECT record_node_power($1::uuid, $2::timestamptz, 5000, 'late')", node,
                   format_rfc3339(t0 + 3600s));
    tx.commit();
  }
  std::map<std::string, std::pair<double, double>> expected;  // hour -> (joules, seconds)
  for (std::size_t i = 0; i + 1 < readings.size(); ++i) {
    const int gap = readings[i + 1].first - readings[i].first;
    if (gap > 15 * 60) continue;
    for (int s = readings[i].first; s < readings[i + 1].first; ++s) {
      const SystemTime at = t0 + std::chrono::seconds(s);
      const std::string hour = format_rfc3339(std::chrono::floor<std::chrono::hours>(at));
      expected[hour].first += readings[i].second;
      expected[hour].second += 1;
    }
  }
  pqxx::work tx(c);
  const auto rows = tx.exec_params(
      "SELECT rfc3339(hour), joules, seconds FROM node_energy_hourly WHERE node_id = $1::uuid "
      "ORDER BY hour",
      node);
  REQUIRE(rows.size() == expected.size());
  for (const auto& r : rows) {
    const std::string hour = r[0].as<std::string>();
    INFO(hour);
    REQUIRE(expected.count(hour) == 1);
    CHECK(r[1].as<double>() == Approx(expected[hour].first));
    CHECK(r[2].as<double>() == Approx(expected[hour].second));
  }
  const auto last = tx.exec_params1(
      "SELECT rfc3339(read_at), watts, source FROM node_power_latest WHERE node_id = $1::uuid",
      node);
  CHECK(last[0].as<std::string>() == format_rfc3339(t0 + 3840s));
  CHECK(last[1].as<double>() == 1250);
  CHECK(last[2].as<std::string>() == "test");
}

}  // namespace node_energy_test

// Discovery runs in PostgreSQL: results and counts, leases, and runs left open by an instance
// that stopped.
#include "inventory/db/discovery_store.hpp"

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "inventory/error.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace discovery_store_test {

using namespace ironhold;
using ironhold::test::TestDatabase;
using nlohmann::json;

namespace {

struct Fixture {
  TestDatabase database;
  db::Database db{db::DatabaseOptions{database.url(), 2}};
  db::DiscoveryStore store{db};

  discovery::DiscoveryRun create(const std::string& owner) {
    db::NewDiscoveryRun n;
    n.parameters = {{"addresses", "10.0.0.1-10.0.0.2"}};
    n.address_count = 2;
    n.requested_by = "ops";
    n.lease_owner = owner;
    return store.create(n);
  }

  void sql(const std::string& statement) {
    pqxx::connection c(database.owner_url());
    pqxx::work tx(c);
    tx.exec0(statement);
    tx.commit();
  }
};

}  // namespace

TEST_CASE("a discovery run keeps its results and counts", "[discovery][db]") {
  Fixture f;
  const auto run = f.create("a");
  CHECK(run.state == "queued");
  f.store.mark_running(run.id);
  discovery::DiscoveryResult r;
  r.seq = 1;
  r.address = "10.0.0.2";
  r.port = 443;
  r.driver = "redfish";
  r.endpoint = "https://10.0.0.2";
  r.status = "found";
  r.detail = "Redfish service root";
  f.store.record(run.id, {2, 1, 0, 0, 0}, {r});
  f.store.record(run.id, {2, 1, 0, 0, 0}, {r});  // a repeated write adds nothing
  f.store.finish(run.id, "succeeded", std::nullopt);
  const auto got = f.store.get(run.id);
  CHECK(got.state == "succeeded");
  CHECK(got.counts.probed == 2);
  CHECK(got.counts.found == 1);
  REQUIRE(got.results.size() == 1);
  CHECK(got.results[0].endpoint == "https://10.0.0.2");
  CHECK(got.started_at);
  CHECK(got.finished_at);
  CHECK(db::to_json(got)["counts"]["found"] == 1);
  CHECK_THROWS_AS(f.store.get("00000000-0000-4000-8000-000000000000"), Error);
  CHECK_THROWS_AS(f.store.get("nope"), Error);
}

TEST_CASE("a run whose lease ran out is failed by the next reader, a live one is not",
          "[discovery][db]") {
  Fixture f;
  const auto dead = f.create("gone");
  const auto live = f.create("here");
  f.store.mark_running(dead.id);
  f.sql("UPDATE discovery_runs SET lease_expires = now() - interval '1 second' WHERE id = '" +
        dead.id + "'");
  const auto got = f.store.get(dead.id);
  CHECK(got.state == "failed");
  REQUIRE(got.error);
  CHECK_THAT(*got.error, Catch::Contains("interrupted by a restart"));
  CHECK(f.store.get(live.id).state == "queued");
  // Renewed leases keep a run open; fail_owned closes one instance's runs only.
  f.store.renew_leases("here", std::chrono::seconds(60));
  CHECK(f.store.fail_abandoned("x") == 0);
  CHECK(f.store.fail_owned("elsewhere", "x") == 0);
  CHECK(f.store.fail_owned("here", "stopped") == 1);
  CHECK(f.store.get(live.id).state == "failed");
  CHECK(f.store.recent(10).size() == 2);
}

}  // namespace discovery_store_test

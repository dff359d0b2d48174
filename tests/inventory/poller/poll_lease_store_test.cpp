// The poll schedule's lease renewal (the poller's heartbeat): an owner extends only the leases it
// still holds, in one statement; a lease recorded meanwhile or taken over by another owner after
// it expired is not extended, which is how the poller learns it lost one. And the connection
// names that tell instances apart in pg_stat_activity.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <regex>
#include <set>

#include "inventory/db/poll_store.hpp"
#include "tests/inventory/db/store_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace poll_lease_store_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;

namespace {

std::set<db::PollKey> keys_of(const std::vector<db::PollJob>& jobs) {
  std::set<db::PollKey> keys;
  for (const auto& job : jobs) keys.insert({job.target.node_id, job.kind});
  return keys;
}

std::set<db::PollKey> renewed(db::PollStore& store, const std::string& owner,
                              const std::vector<db::PollKey>& keys) {
  const auto out = store.renew(owner, keys, 30s);
  return {out.begin(), out.end()};
}

}  // namespace

TEST_CASE("an owner renews the poll leases it holds, and only those", "[poller][db]") {
  StoreFixture f;
  db::PollStore store(f.db, f.box);
  const std::string first = f.enroll("lease-1"), second = f.enroll("lease-2");
  const std::string drivers[] = {"redfish"};
  const auto claimed = store.claim("owner-a", drivers, 10, 5s);
  REQUIRE(claimed.size() == 6);  // status, sensors and inventory of both
  const db::PollKey status1{first, db::PollKind::status}, status2{second, db::PollKind::status},
      sensors1{first, db::PollKind::sensors};
  REQUIRE(keys_of(claimed).count(status1));

  // Extended, in one statement, to 30 s from now.
  CHECK(renewed(store, "owner-a", {status1, status2}) == std::set<db::PollKey>{status1, status2});
  CHECK(f.database.execute("SELECT count(*) FROM poll_schedule WHERE lease_owner = 'owner-a' "
                           "AND lease_expires > now() + interval '20 seconds'") == "2");
  // Another owner extends nothing of them.
  CHECK(renewed(store, "owner-b", {status1, status2, sensors1}).empty());

  // Recorded: the lease is gone, and so is its renewal.
  db::PollResult result;
  result.kind = db::PollKind::status;
  result.node_id = first;
  const db::PollResult one[] = {result};
  store.record(one, "owner-a");
  CHECK(renewed(store, "owner-a", {status1, sensors1}) == std::set<db::PollKey>{sensors1});

  // Expired and taken by another owner: lost to the first.
  f.database.execute(
      "UPDATE poll_schedule SET lease_expires = now() - interval '1 second' "
      "WHERE node_id = '" +
      second + "' AND kind = 'status'");
  const auto taken = store.claim("owner-b", drivers, 10, 5s);
  CHECK(keys_of(taken) == std::set<db::PollKey>{status2});
  CHECK(renewed(store, "owner-a", {status2}).empty());
  CHECK(renewed(store, "owner-b", {status2}) == std::set<db::PollKey>{status2});
  CHECK(store.renew("owner-a", {}, 30s).empty());
}

TEST_CASE("connections carry the instance's name in pg_stat_activity, unless the URL names one",
          "[db]") {
  CHECK(db::with_application_name("host=/run/pg dbname=x", "ironhold-ab pool") ==
        "host=/run/pg dbname=x fallback_application_name='ironhold-ab pool'");
  CHECK(db::with_application_name("postgresql://db.example.net/ironhold", "it's") ==
        "postgresql://db.example.net/ironhold?fallback_application_name=it%27s");
  CHECK(db::with_application_name("postgresql://h/d?sslmode=require", "a b") ==
        "postgresql://h/d?sslmode=require&fallback_application_name=a%20b");
  CHECK(db::with_application_name("dbname=x application_name=mine", "ironhold") ==
        "dbname=x application_name=mine");
  CHECK(db::with_application_name("dbname=x", "") == "dbname=x");

  TestDatabase database;
  const auto name_of = [](const std::string& url) {
    pqxx::connection c(url);
    pqxx::nontransaction tx(c);
    return tx.exec1("SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()")[0]
        .as<std::string>();
  };
  CHECK(name_of(db::with_application_name(database.url(), "ironhold-ab pool")) ==
        "ironhold-ab pool");
  // The same database as a URI (socket directory as a query parameter).
  std::smatch m;
  const std::string conninfo = database.url();
  REQUIRE(std::regex_search(conninfo, m,
                            std::regex("host=([^ ]+) port=([0-9]+) dbname=([^ ]+) user=([^ ]+)")));
  const std::string uri = "postgresql:///" + m[3].str() + "?host=" + m[1].str() +
                          "&port=" + m[2].str() + "&user=" + m[4].str();
  CHECK(name_of(db::with_application_name(uri, "ironhold-ab listen")) == "ironhold-ab listen");
  // The pool names its connections the same way.
  db::Database pool(db::DatabaseOptions{.url = database.url(),
                                        .pool_size = 1,
                                        .application_name = "ironhold-cd pool",
                                        .listen_application_name = "ironhold-cd listen"});
  CHECK(database.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                         "'ironhold-cd pool' AND datname = current_database()") == "1");
  CHECK(name_of(pool.listen_url()) == "ironhold-cd listen");
}

}  // namespace poll_lease_store_test

// The hottest reads (a node by id or name, a token's check) prepared once per pooled connection
// when the service asks for it, and never when it does not (PgBouncer in transaction mode): the
// same answers either way, and the statements visible in the connection's
// pg_prepared_statements. (A connection the server drops is replaced by the pool and libpqxx
// prepares again on the new one; that path is left out here: libpqxx 6 leaks the broken
// connection's last result, which LeakSanitizer reports.)
#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <set>

#include "inventory/db/token_store.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "tests/inventory/db/store_fixture.hpp"

namespace ironhold::test {
namespace prepared_statements_test {
namespace {

// The statements prepared on the pool's (only) connection.
std::set<std::string> prepared_on_pool(db::Database& db) {
  return db::transact(db, [](pqxx::work& tx) {
    std::set<std::string> names;
    for (const auto& row : tx.exec("SELECT name FROM pg_prepared_statements"))
      names.insert(row[0].as<std::string>());
    return names;
  });
}

// Reads a node by id and by name and checks a token, twice each (the second time, a prepared
// statement runs as it is).
void read_hot_paths(db::Database& db, crypto::SecretBox& box, const std::string& id) {
  db::NodeStore nodes(db, box);
  db::TokenStore tokens(db);
  static int readers = 0;
  const auto token = tokens.create("reader-" + std::to_string(++readers), Role::viewer, "tester");
  for (int round = 0; round < 2; ++round) {
    CHECK(nodes.get(id).name == "gpu-01");
    CHECK(nodes.get("gpu-01").id == id);
    CHECK_THROWS_AS(nodes.get("gpu-99"), Error);
    const auto checked = tokens.authenticate(token.secret);
    REQUIRE(checked);
    CHECK(checked->id == token.info.id);
    CHECK_FALSE(tokens.authenticate(token.secret.substr(0, token.secret.size() - 1) + "x"));
  }
}

}  // namespace

TEST_CASE("the hottest reads are prepared once per connection only when the service asks",
          "[db][prepared]") {
  StoreFixture f;
  const std::string id = f.enroll("gpu-01");

  SECTION("prepared") {
    db::Database db(db::DatabaseOptions{.url = f.database.url(),
                                        .pool_size = 1,
                                        .prepared_statements = true,
                                        .audit_key = crypto::Key{7}});
    read_hot_paths(db, f.box, id);
    const auto names = prepared_on_pool(db);
    CHECK(names.count("node_by_id") == 1);
    CHECK(names.count("node_by_name") == 1);
    CHECK(names.count("authenticate_token") == 1);
  }

  SECTION("not prepared") {
    db::Database db(db::DatabaseOptions{.url = f.database.url(),
                                        .pool_size = 1,
                                        .prepared_statements = false,
                                        .audit_key = crypto::Key{7}});
    read_hot_paths(db, f.box, id);
    CHECK(prepared_on_pool(db).empty());
  }
}

}  // namespace prepared_statements_test
}  // namespace ironhold::test

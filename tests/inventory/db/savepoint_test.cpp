// A savepoint undoes only what a refused statement's part of the transaction did, whether the
// statements run through exec, exec_params or exec_prepared (libpqxx 6.4's subtransaction set no
// savepoint for the last two, so one refused statement aborted the whole transaction).
#include "inventory/db/savepoint.hpp"

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace savepoint_test {

using ironhold::db::Savepoint;
using ironhold::test::TestDatabase;

TEST_CASE("a refused statement inside a savepoint undoes that part only", "[db][savepoint]") {
  TestDatabase database;
  pqxx::connection c(database.owner_url());
  {
    pqxx::work setup(c);
    setup.exec0("CREATE TABLE items (id integer PRIMARY KEY)");
    setup.commit();
  }
  c.prepare("insert_item", "INSERT INTO items VALUES ($1)");

  pqxx::work tx(c);
  tx.exec_params0("INSERT INTO items VALUES ($1)", 1);
  {
    Savepoint kept(tx, "kept");
    tx.exec_prepared0("insert_item", 2);
    kept.release();
  }
  for (const int duplicate : {1, 2}) {
    Savepoint refused(tx, "refused");
    tx.exec_params0("INSERT INTO items VALUES ($1)", 3);
    CHECK_THROWS_AS(tx.exec_prepared0("insert_item", duplicate), pqxx::unique_violation);
    // Left without release(): rolled back, 3 with it.
  }
  tx.exec_params0("INSERT INTO items VALUES ($1)", 4);  // the transaction goes on
  tx.commit();

  pqxx::nontransaction check(c);
  CHECK(
      check.exec1("SELECT string_agg(id::text, ',' ORDER BY id) FROM items")[0].as<std::string>() ==
      "1,2,4");
}

}  // namespace savepoint_test

#include "inventory/db/migrator.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <exception>
#include <filesystem>
#include <fstream>
#include <latch>
#include <pqxx/pqxx>
#include <set>
#include <sstream>
#include <thread>

#include "inventory/error.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace migrator_test {

using ironhold::Error;
using ironhold::ErrorKind;
using ironhold::db::migrate;
using ironhold::db::Migration;
using ironhold::test::TestDatabase;

namespace {

std::vector<std::string> bundled_names() {
  std::vector<std::string> names;
  for (const auto& m : ironhold::db::bundled_migrations()) names.push_back(m.name);
  return names;
}

std::vector<std::pair<std::string, std::string>> ledger(const std::string& url) {
  pqxx::connection c(url);
  pqxx::nontransaction tx(c);
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& row : tx.exec("SELECT name, checksum FROM schema_migrations ORDER BY name"))
    rows.emplace_back(row[0].as<std::string>(), row[1].as<std::string>());
  return rows;
}

int count_tables(const std::string& url, const std::string& like) {
  pqxx::connection c(url);
  pqxx::nontransaction tx(c);
  return tx
      .exec_params1(
          "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE $1",
          like)[0]
      .as<int>();
}

}  // namespace

TEST_CASE("the bundled migrations are the files of migrations/, byte for byte, in name order") {
  std::set<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(IRONHOLD_MIGRATIONS_DIR))
    if (entry.path().extension() == ".sql") on_disk.insert(entry.path().filename().string());
  const auto names = bundled_names();
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(std::set<std::string>(names.begin(), names.end()) == on_disk);
  for (const auto& m : ironhold::db::bundled_migrations()) {
    std::ifstream in(std::filesystem::path(IRONHOLD_MIGRATIONS_DIR) / m.name, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    CHECK(m.sql == text.str());
  }
}

TEST_CASE(
    "migrations on an empty database apply every bundled file and record it with its checksum") {
  TestDatabase db(TestDatabase::Kind::empty);
  auto report = migrate(db.owner_url());
  CHECK(report.applied == bundled_names());
  CHECK(report.already_applied.empty());

  std::vector<std::pair<std::string, std::string>> expected;
  for (const auto& m : ironhold::db::bundled_migrations())
    expected.emplace_back(m.name, ironhold::db::migration_checksum(m.sql));
  CHECK(ledger(db.owner_url()) == expected);
}

TEST_CASE("re-running the migrations applies nothing") {
  TestDatabase db(TestDatabase::Kind::empty);
  migrate(db.owner_url());
  auto again = migrate(db.owner_url());
  CHECK(again.applied.empty());
  CHECK(again.already_applied == bundled_names());
}

TEST_CASE("migrations run in file name order whatever order they are given in") {
  TestDatabase db(TestDatabase::Kind::empty);
  const std::vector<Migration> given = {
      {"0002_child.sql", "CREATE TABLE child (parent_id int REFERENCES parent (id));"},
      {"0001_parent.sql", "CREATE TABLE parent (id int PRIMARY KEY);"},
  };
  auto report = migrate(db.owner_url(), given);
  CHECK(report.applied == std::vector<std::string>{"0001_parent.sql", "0002_child.sql"});
}

TEST_CASE("a migration edited after it was applied is refused with an error naming the file") {
  TestDatabase db(TestDatabase::Kind::empty);
  migrate(db.owner_url(),
          std::vector<Migration>{{"0001_things.sql", "CREATE TABLE things (id int);"}});
  const std::vector<Migration> edited = {{"0001_things.sql", "CREATE TABLE things (id bigint);"},
                                         {"0002_more.sql", "CREATE TABLE more (id int);"}};
  try {
    migrate(db.owner_url(), edited);
    FAIL("an edited migration was accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::conflict);
    CHECK_THAT(e.what(), Catch::Contains("0001_things.sql") && Catch::Contains("edited"));
  }
  CHECK(count_tables(db.owner_url(), "more") == 0);
}

TEST_CASE("a failing migration is not recorded and leaves the earlier ones applied") {
  TestDatabase db(TestDatabase::Kind::empty);
  const std::vector<Migration> migrations = {
      {"0001_ok.sql", "CREATE TABLE ok (id int);"},
      {"0002_bad.sql", "CREATE TABLE half (id int); SELECT nope;"}};
  CHECK_THROWS_WITH(migrate(db.owner_url(), migrations), Catch::Contains("0002_bad.sql"));
  CHECK(ledger(db.owner_url()).size() == 1);
  CHECK(count_tables(db.owner_url(), "half") == 0);
}

TEST_CASE("two concurrent migrators apply each file exactly once") {
  TestDatabase db(TestDatabase::Kind::empty);
  // CREATE TABLE without IF NOT EXISTS fails when run twice; the sleep widens the race window.
  std::vector<Migration> migrations;
  for (int i = 1; i <= 6; ++i) {
    const std::string n = std::to_string(i);
    migrations.push_back(
        {"000" + n + "_race.sql", "SELECT pg_sleep(0.02); CREATE TABLE race_" + n + " (id int);"});
  }
  std::latch ready(2);
  ironhold::db::MigrationReport reports[2];
  std::exception_ptr errors[2];
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      ready.arrive_and_wait();
      try {
        reports[t] = migrate(db.owner_url(), migrations);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (auto& error : errors)
    if (error) std::rethrow_exception(error);

  std::multiset<std::string> applied;
  for (const auto& r : reports) {
    applied.insert(r.applied.begin(), r.applied.end());
    CHECK(r.applied.size() + r.already_applied.size() == migrations.size());
  }
  CHECK(applied.size() == migrations.size());
  CHECK(std::set<std::string>(applied.begin(), applied.end()).size() == migrations.size());
  CHECK(ledger(db.owner_url()).size() == migrations.size());
  CHECK(count_tables(db.owner_url(), "race_%") == 6);
}

}  // namespace migrator_test

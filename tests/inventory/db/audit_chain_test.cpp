// The audit chain against a real PostgreSQL: entries written through the store verify; each kind
// of tampering, made directly in the database the way someone with database access would (as the
// owner role, triggers disabled), is caught and named at the right entry; the runtime role cannot
// change or delete entries at all; writers on several instances at once append one after another.
#include <catch2/catch.hpp>
#include <filesystem>
#include <latch>
#include <memory>
#include <pqxx/pqxx>
#include <thread>
#include <vector>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/audit_store.hpp"
#include "inventory/db/migrator.hpp"
#include "tests/support/random_key.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace audit_chain_test {

using namespace ironhold;
using ironhold::test::random_key;
using ironhold::test::TestDatabase;

namespace {

struct ChainFixture {
  TestDatabase database;
  crypto::Key key = random_key();
  db::Database db{db::DatabaseOptions{.url = database.url(), .pool_size = 2, .audit_key = key}};
  db::AuditStore audit{db};

  void write(int count) {
    for (int i = 0; i < count; ++i) {
      db::AuditEntry e;
      e.actor = "tester";
      e.action = "test.write";
      e.target_type = "node";
      e.target_id = "node-" + std::to_string(i);
      e.outcome = "ok";
      e.details = {{"i", i}, {"note", "entry " + std::to_string(i)}};
      audit.record(e);
    }
  }

  // SQL as the owner with the append-only guards off: what database access allows.
  void tamper(const std::string& sql) {
    database.execute(
        "ALTER TABLE audit_log DISABLE TRIGGER USER; ALTER TABLE audit_chain DISABLE TRIGGER "
        "USER; " +
        sql +
        "; ALTER TABLE audit_log ENABLE TRIGGER USER; ALTER TABLE audit_chain ENABLE TRIGGER USER");
  }

  db::ChainReport verify(const audit::AnchorFile* anchor = nullptr) {
    return db::verify_audit_chain(db, anchor);
  }
};

std::string problem_kind(const db::ChainReport& r) {
  return r.problem ? r.problem->kind : "none";
}

}  // namespace

TEST_CASE("entries written through the store form a chain that verifies", "[audit][chain]") {
  ChainFixture f;
  f.write(5);
  const auto report = f.verify();
  INFO((report.problem ? report.problem->message : ""));
  CHECK(report.ok());
  CHECK(report.entries == 5);
  CHECK(report.head.seq == 5);
  CHECK(f.database.execute("SELECT count(*) FROM audit_log WHERE mac IS NULL") == "0");
  // The database's own record of the head is the last entry's seal.
  CHECK(f.database.execute("SELECT encode(mac, 'hex') FROM audit_log WHERE seq = 5") ==
        report.head.mac_hex);
}

TEST_CASE("an edited entry is reported as modified, at its place", "[audit][chain]") {
  ChainFixture f;
  f.write(5);
  f.tamper("UPDATE audit_log SET outcome = 'denied' WHERE seq = 3");
  const auto report = f.verify();
  CHECK(problem_kind(report) == "modified");
  REQUIRE(report.problem->seq);
  CHECK(*report.problem->seq == 3);
  CHECK(report.entries == 2);
}

TEST_CASE("an edited detail of the newest entry is reported as modified", "[audit][chain]") {
  ChainFixture f;
  f.write(4);
  f.tamper(
      "UPDATE audit_log SET details = '{\"i\": 3, \"note\": \"nothing happened\"}' WHERE seq = 4");
  const auto report = f.verify();
  CHECK(problem_kind(report) == "modified");
  CHECK(report.problem->seq == 4);
}

TEST_CASE("a deleted entry is reported as deleted, with its place", "[audit][chain]") {
  ChainFixture f;
  f.write(5);
  f.tamper("DELETE FROM audit_log WHERE seq = 2");
  const auto report = f.verify();
  CHECK(problem_kind(report) == "deleted");
  CHECK(report.problem->seq == 2);
}

TEST_CASE(
    "deleting the newest entries is caught by the head, and by the anchor when the head is rewound",
    "[audit][chain]") {
  ChainFixture f;
  f.write(5);
  const auto dir =
      std::filesystem::temp_directory_path() / ("ironhold-anchor-" + f.database.name());
  std::filesystem::create_directories(dir);
  audit::AnchorFile anchor(dir / "audit-anchor");
  const db::ChainHead head = f.audit.head();
  anchor.append({head.seq, head.mac_hex, head.at});

  SECTION("only the entries") {
    f.tamper("DELETE FROM audit_log WHERE seq >= 4");
    const auto report = f.verify(&anchor);
    CHECK(problem_kind(report) == "deleted");
    CHECK(report.problem->seq == 4);
  }
  SECTION("the entries and the database's head") {
    f.tamper(
        "DELETE FROM audit_log WHERE seq >= 4; UPDATE audit_chain SET head_seq = 3, "
        "head_mac = (SELECT mac FROM audit_log WHERE seq = 3)");
    CHECK(f.verify().ok());  // the database alone cannot tell
    const auto report = f.verify(&anchor);
    CHECK(problem_kind(report) == "deleted");
    CHECK(report.problem->seq == 4);
    CHECK_THAT(report.problem->message, Catch::Contains("anchored outside the database"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("an entry inserted directly is reported as inserted", "[audit][chain]") {
  ChainFixture f;
  f.write(4);
  SECTION("in the middle, the later entries moved up") {
    f.tamper(
        "UPDATE audit_log SET seq = seq + 100 WHERE seq >= 3; "
        "UPDATE audit_log SET seq = seq - 99 WHERE seq >= 103; "
        "INSERT INTO audit_log (seq, actor, action, outcome, details, prev_mac, mac) "
        "SELECT 3, 'tester', 'test.write', 'ok', '{}', mac, decode(repeat('ab', 32), 'hex') "
        "FROM audit_log WHERE seq = 2");
    const auto report = f.verify();
    CHECK(problem_kind(report) == "inserted");
    CHECK(report.problem->seq == 3);
  }
  SECTION("at the end") {
    f.tamper(
        "INSERT INTO audit_log (seq, actor, action, outcome, details, prev_mac, mac) "
        "SELECT 5, 'tester', 'test.write', 'ok', '{}', mac, decode(repeat('cd', 32), 'hex') "
        "FROM audit_log WHERE seq = 4");
    const auto report = f.verify();
    CHECK(problem_kind(report) == "inserted");
    CHECK(report.problem->seq == 5);
  }
  SECTION("without a seal") {
    f.tamper(
        "INSERT INTO audit_log (actor, action, outcome) VALUES ('tester', 'test.write', 'ok')");
    CHECK(problem_kind(f.verify()) == "inserted");
  }
}

TEST_CASE("two entries swapped are reported as reordered", "[audit][chain]") {
  ChainFixture f;
  f.write(5);
  f.tamper(
      "UPDATE audit_log SET seq = -1 WHERE seq = 2; UPDATE audit_log SET seq = 2 WHERE seq = 3; "
      "UPDATE audit_log SET seq = 3 WHERE seq = -1");
  const auto report = f.verify();
  CHECK(problem_kind(report) == "reordered");
  CHECK(report.problem->seq == 2);
}

TEST_CASE("the runtime role can neither change nor delete audit entries", "[audit][chain]") {
  ChainFixture f;
  f.write(2);
  pqxx::connection runtime(f.database.url());
  // The error's text: this libpqxx leaves sqlstate() empty for these.
  auto attempt = [&](const std::string& sql) {
    pqxx::work tx(runtime);
    try {
      tx.exec0(sql);
    } catch (const pqxx::sql_error& e) {
      return std::string(e.what());
    }
    return std::string("allowed");
  };
  using Catch::Contains;
  CHECK_THAT(attempt("DELETE FROM audit_log"), Contains("permission denied"));
  CHECK_THAT(attempt("UPDATE audit_log SET outcome = 'x'"), Contains("permission denied"));
  // A column it may set, but not on a sealed entry.
  CHECK_THAT(attempt("UPDATE audit_log SET mac = NULL"), Contains("cannot be changed"));
  CHECK_THAT(attempt("TRUNCATE audit_log"), Contains("permission denied"));
  CHECK_THAT(attempt("UPDATE audit_chain SET head_seq = 0"), Contains("only moves forward"));
  CHECK_THAT(attempt("DELETE FROM audit_chain"), Contains("permission denied"));
  // Nor can the owner, without first turning the guards off.
  CHECK_THROWS(f.database.execute("DELETE FROM audit_log WHERE seq = 1"));
  CHECK(f.verify().ok());
}

TEST_CASE("writers on several connections at once append to one chain without forking it",
          "[audit][chain][concurrency]") {
  ChainFixture f;
  constexpr int writers = 4;
  constexpr int per_writer = 50;
  // One Database (one connection) per writer, as separate instances sharing the database have.
  std::vector<std::unique_ptr<db::Database>> instances;
  for (int w = 0; w < writers; ++w)
    instances.push_back(std::make_unique<db::Database>(
        db::DatabaseOptions{.url = f.database.url(), .pool_size = 1, .audit_key = f.key}));
  std::latch start(writers);
  std::vector<std::vector<std::string>> errors(writers);
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      db::AuditStore audit(*instances[w]);
      start.arrive_and_wait();
      for (int i = 0; i < per_writer; ++i) {
        db::AuditEntry e;
        e.actor = "writer-" + std::to_string(w);
        e.action = "test.write";
        e.target_id = std::to_string(i);
        e.outcome = "ok";
        e.details = {{"writer", w}, {"i", i}};
        try {
          audit.record(e);
        } catch (const std::exception& ex) {
          errors[w].push_back(ex.what());
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int w = 0; w < writers; ++w) {
    INFO("writer " << w << ": " << (errors[w].empty() ? "" : errors[w].front()));
    CHECK(errors[w].empty());
  }

  constexpr int total = writers * per_writer;
  const auto report = f.verify();
  INFO((report.problem ? report.problem->message : ""));
  CHECK(report.ok());
  CHECK(report.entries == total);
  CHECK(report.head.seq == total);
  // Places 1..N, each once.
  CHECK(f.database.execute("SELECT count(*) || ' ' || count(DISTINCT seq) || ' ' || min(seq) || "
                           "' ' || max(seq) FROM audit_log") ==
        std::to_string(total) + " " + std::to_string(total) + " 1 " + std::to_string(total));
  // Every entry written once, and each entry sealed over the one before it.
  CHECK(f.database.execute("SELECT count(DISTINCT (actor, target_id)) FROM audit_log") ==
        std::to_string(total));
  CHECK(f.database.execute("SELECT count(*) FROM audit_log a LEFT JOIN audit_log b ON b.seq = "
                           "a.seq - 1 WHERE a.seq > 1 AND a.prev_mac IS DISTINCT FROM b.mac") ==
        "0");
  CHECK(f.database.execute("SELECT count(DISTINCT prev_mac) FROM audit_log") ==
        std::to_string(total));
  // Each writer's own entries keep the order it wrote them in.
  CHECK(f.database.execute(
            "SELECT count(*) FROM (SELECT target_id::int AS i, row_number() OVER (PARTITION BY "
            "actor ORDER BY seq) - 1 AS place FROM audit_log) x WHERE i <> place") == "0");
}

TEST_CASE("a second instance with another audit key refuses to write, and verification says why",
          "[audit][chain]") {
  ChainFixture f;
  f.write(1);
  db::Database other{
      db::DatabaseOptions{.url = f.database.url(), .pool_size = 1, .audit_key = random_key()}};
  db::AuditStore audit(other);
  db::AuditEntry e;
  e.actor = "other";
  e.action = "test.write";
  e.outcome = "ok";
  CHECK_THROWS_WITH(audit.record(e), Catch::Contains("another audit key"));
  const auto report = db::verify_audit_chain(other, nullptr);
  CHECK(problem_kind(report) == "wrong_key");
  CHECK(f.verify().ok());
}

TEST_CASE("entries written before the chain existed are sealed into it by the first writer",
          "[audit][chain][migration]") {
  TestDatabase database(TestDatabase::Kind::empty);
  const auto all = db::bundled_migrations();
  std::size_t before_chain = 0;
  while (before_chain < all.size() &&
         all[before_chain].name.find("audit_chain") == std::string::npos)
    ++before_chain;
  REQUIRE(before_chain < all.size());
  db::migrate(database.owner_url(), all.first(before_chain));
  database.execute(
      "INSERT INTO audit_log (actor, action, outcome, details) VALUES "
      "('alice', 'POST /api/v1/nodes', '201', '{\"name\": \"gpu-1\"}'), "
      "('bob', 'DELETE /api/v1/nodes/gpu-1', '204', '{}')");
  db::migrate(database.owner_url(), all);

  const crypto::Key key = random_key();
  db::Database db{db::DatabaseOptions{.url = database.url(), .pool_size = 1, .audit_key = key}};
  CHECK(db::verify_audit_chain(db, nullptr).unsealed_legacy == 2);
  db::AuditStore audit(db);
  db::AuditEntry e;
  e.actor = "carol";
  e.action = "token.create";
  e.outcome = "ok";
  audit.record(e);
  const auto report = db::verify_audit_chain(db, nullptr);
  CHECK(report.ok());
  CHECK(report.entries == 3);
  CHECK(report.unsealed_legacy == 0);
  CHECK(database.execute("SELECT actor FROM audit_log WHERE seq = 1") == "alice");
  CHECK(database.execute("SELECT actor FROM audit_log WHERE seq = 3") == "carol");
}

}  // namespace audit_chain_test

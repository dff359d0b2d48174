#include "inventory/db/migrator.hpp"

#include <algorithm>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/database.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::db {
namespace {

// Shared by every ironhold migrator, whatever database it runs against; transaction-level, so a
// migrator that dies releases it with its connection.
constexpr long long migration_lock_key = 0x1f0a'd00d'5c4e'0001LL;

void lock_migrations(pqxx::work& tx) {
  tx.exec_params("SELECT pg_advisory_xact_lock($1)", migration_lock_key);
}

// Under the lock, because two first-time migrators would otherwise both try to create the table
// and one would fail on the catalog's unique index.
void create_ledger(pqxx::work& tx) {
  lock_migrations(tx);
  tx.exec0("SET LOCAL client_min_messages = warning");  // no "already exists, skipping" notice
  tx.exec0(
      "CREATE TABLE IF NOT EXISTS schema_migrations ("
      " name text PRIMARY KEY,"
      " checksum text NOT NULL,"
      " applied_at timestamptz NOT NULL DEFAULT now())");
}

enum class Outcome { applied, already_applied };

Outcome apply_one(pqxx::work& tx, const Migration& m, const std::string& checksum) {
  lock_migrations(tx);
  // Checked after taking the lock: a concurrent migrator may have applied it while we waited.
  auto recorded = tx.exec_params("SELECT checksum FROM schema_migrations WHERE name = $1", m.name);
  if (!recorded.empty()) {
    const std::string before = recorded[0][0].as<std::string>();
    if (before == checksum) return Outcome::already_applied;
    throw conflict("migration " + m.name + " was edited after it was applied (checksum " + before +
                   " recorded, " + checksum +
                   " now); restore the original file and add a new migration "
                   "instead");
  }
  try {
    tx.exec(m.sql);
  } catch (const pqxx::sql_error& e) {
    throw Error(ErrorKind::internal,
                "migration " + m.name + " failed, nothing of it was applied: " + e.what());
  }
  tx.exec_params("INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)", m.name,
                 checksum);
  return Outcome::applied;
}

}  // namespace

std::string migration_checksum(const std::string& sql) {
  return crypto::to_hex(crypto::sha256(sql));
}

MigrationReport migrate(const std::string& url, std::span<const Migration> migrations) {
  std::vector<const Migration*> ordered;
  for (const auto& m : migrations) ordered.push_back(&m);
  std::sort(ordered.begin(), ordered.end(), [](auto* a, auto* b) { return a->name < b->name; });
  for (size_t i = 1; i < ordered.size(); ++i)
    if (ordered[i]->name == ordered[i - 1]->name)
      throw Error(ErrorKind::internal, "migration " + ordered[i]->name + " is listed twice");

  Database db(DatabaseOptions{.url = url, .pool_size = 1});
  transact(db, create_ledger);

  MigrationReport report;
  for (const Migration* m : ordered) {
    const std::string checksum = migration_checksum(m->sql);
    // One transaction per file: a failure leaves the earlier ones applied and this one not at all.
    Outcome outcome = transact(db, [&](pqxx::work& tx) { return apply_one(tx, *m, checksum); });
    if (outcome == Outcome::applied) {
      log::info("migration applied", {{"migration", m->name}});
      report.applied.push_back(m->name);
    } else {
      report.already_applied.push_back(m->name);
    }
  }
  return report;
}

}  // namespace ironhold::db

#pragma once
// Numbered plain-SQL migrations (migrations/NNNN_name.sql, embedded into the binary at build time).
// Each is applied in its own transaction under a transaction-level advisory lock and recorded
// (name, checksum, time) in schema_migrations. Re-running is a no-op; an already applied file whose
// checksum changed is refused with an error naming it.
#include <span>
#include <string>
#include <vector>

namespace ironhold::db {

struct Migration {
  std::string name;  // file name, e.g. "0001_initial.sql"
  std::string sql;
};

// The migrations shipped in this binary, in order.
std::span<const Migration> bundled_migrations();

struct MigrationReport {
  std::vector<std::string> applied;          // applied now
  std::vector<std::string> already_applied;  // found recorded with a matching checksum
};

// Applies what is missing, in name order, connecting with `url` (the owner role). Throws
// ironhold::Error (conflict) naming the file when an applied migration's checksum differs.
MigrationReport migrate(const std::string& url,
                        std::span<const Migration> migrations = bundled_migrations());

// Hex SHA-256 of a migration's text, as recorded in schema_migrations.checksum.
std::string migration_checksum(const std::string& sql);

}  // namespace ironhold::db

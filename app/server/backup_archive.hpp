#pragma once
// What `ironhold restore` reads from a backup file before it touches any database: that it is a
// complete pg_dump archive (every byte of it read back), the migrations it was made at, the keys
// its credentials and its audit chain are sealed under, and the roles its privileges name.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::app {

struct ArchiveMigration {
  std::string name;
  std::string checksum;
};

struct ArchiveFacts {
  std::vector<ArchiveMigration> migrations;        // from its schema_migrations
  std::optional<std::string> audit_key_check_hex;  // audit_chain.key_check; none before sealing
  std::vector<std::string> acl_roles;              // named by its GRANT, REVOKE and defaults
  // How many BMC, cloud and alert receiver credentials are sealed under each master key id.
  // (Tasks' write-only secrets are not read: the table can be large, and they are short-lived.)
  std::map<std::string, long long> sealed_under;
};

// Reads the archive with `pg_restore`. Throws ironhold::Error (invalid) when the file is not a
// complete archive or not one of an Ironhold database, with what pg_restore said.
ArchiveFacts read_archive(const std::filesystem::path& pg_restore,
                          const std::filesystem::path& file);

// The pure parts, for tests.

// A table's data as a COPY ... FROM stdin block in pg_restore's SQL output: NULL is nullopt.
struct CopyTable {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
  // The column's index; nullopt when the table has none of that name.
  std::optional<size_t> column(std::string_view name) const;
};
// Every COPY block of `sql`, by table name without its schema.
std::map<std::string, CopyTable> parse_copy_blocks(std::string_view sql);

// The roles that the privilege statements of a pg_restore script (lines starting GRANT, REVOKE or
// ALTER DEFAULT PRIVILEGES) grant to, revoke from or set defaults for; PUBLIC left out.
std::vector<std::string> roles_in_acl_sql(std::string_view sql);

}  // namespace ironhold::app

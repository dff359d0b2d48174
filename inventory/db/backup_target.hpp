#pragma once
// What `ironhold backup` and `ironhold restore` need to know about a database besides what
// pg_dump and pg_restore do: its server version, the Ironhold migrations it holds and who else is
// connected to it; and the schema swap that makes a restore all-or-nothing. A restore goes into a
// fresh, empty schema `public` while the one it replaces waits aside: the fresh schema has none of
// the default privileges the old one carried (so the backup's own grants apply exactly, the audit
// trail's narrower ones included), nothing a newer version created survives next to the restored
// tables, and a failed restore puts the old schema back as it was.
#include <string>
#include <vector>

namespace ironhold::db {

// A client connected to the database other than the one asking.
struct DatabaseSession {
  int pid = 0;
  std::string user;
  std::string application;  // application_name, may be empty
  std::string client;       // the client's address, "local" for a Unix socket, "" when hidden
  std::string since;        // RFC 3339, "" when hidden (another role's session)
};

struct DatabaseFacts {
  std::string database;                 // current_database()
  std::string user;                     // the role connected
  int server_major = 0;                 // 15 for PostgreSQL 15.x
  std::vector<std::string> migrations;  // recorded in schema_migrations, in name order
  long long relations = 0;              // tables, views and sequences in schema public
  std::vector<DatabaseSession> sessions;
  bool set_aside_exists = false;  // a schema an interrupted restore left behind
};

// The schema the replaced `public` waits in while a restore runs.
inline constexpr const char* set_aside_schema = "ironhold_before_restore";

// Connects with `url` (as the owner role) and looks. Throws ironhold::Error (unavailable) when the
// database cannot be reached.
DatabaseFacts inspect_database(const std::string& url);

// Those of `roles` that do not exist in the database's cluster.
std::vector<std::string> missing_roles(const std::string& url,
                                       const std::vector<std::string>& roles);

// In one transaction: renames schema public to set_aside_schema and creates an empty public owned
// by the connected role, usable by everyone (as initdb makes it); the backup's grants narrow it.
void set_public_aside(const std::string& url);
// The restore succeeded: the schema set aside goes.
void drop_set_aside(const std::string& url);
// The restore failed: whatever it left in public goes and the schema set aside is public again.
void put_public_back(const std::string& url);

}  // namespace ironhold::db

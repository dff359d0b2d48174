#pragma once
// Internal to inventory/db/: the hottest statements (a token's check, a user's grants, one node by
// id or name) run as protocol-level prepared statements, so PostgreSQL parses and plans each once
// per connection instead of at every request. libpqxx keeps the definitions per connection and
// sends the PREPARE at a statement's first use there; a connection the pool replaces starts
// without them.
//
// PgBouncer before 1.21 in transaction mode hands each transaction another server connection,
// where a statement prepared on the last one does not exist: DatabaseOptions::prepared_statements
// turns them off (--no-prepared-statements), and the same SQL runs through exec_params.
#include <pqxx/pqxx>
#include <string>
#include <utility>

namespace ironhold::db {

// A statement's name on every connection and its SQL (which must not change for the name).
struct HotStatement {
  std::string name;
  std::string sql;
};

template <class... Args>
pqxx::result exec_hot(pqxx::transaction_base& tx, bool prepared, const HotStatement& statement,
                      Args&&... args) {
  if (!prepared) return tx.exec_params(statement.sql, std::forward<Args>(args)...);
  // A no-op when this connection has the definition already.
  tx.conn().prepare(statement.name, statement.sql);
  return tx.exec_prepared(statement.name, std::forward<Args>(args)...);
}

}  // namespace ironhold::db

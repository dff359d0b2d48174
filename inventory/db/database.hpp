#pragma once
// A small pool of PostgreSQL connections. This header is free of libpqxx so that web/ and app/ can
// hold a Database; the stores in inventory/db/ run their SQL through db/transaction.hpp.
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "inventory/crypto/secret_box.hpp"

namespace ironhold::db {

struct DatabaseOptions {
  std::string url;      // libpq connection string or URI
  int pool_size = 4;    // connections; the web layer runs database work on as many threads
  int max_retries = 5;  // for serialization failures and deadlocks
  // The hottest reads as protocol-level prepared statements (see db/prepared.hpp): the service
  // turns them on unless it runs behind PgBouncer before 1.21 in transaction mode, where a
  // prepared statement does not follow the client from one transaction to the next. Off for the
  // short-lived commands, which would not reuse them.
  bool prepared_statements = false;
  std::chrono::seconds connect_timeout{10};
  // The key that seals audit entries (kept beside the master key, never in the database). Without
  // it, writing an audit entry fails: an unsealed entry would break the chain.
  std::optional<crypto::Key> audit_key;
  // What pg_stat_activity shows for these connections ("ironhold-3fa9c2d41b07 pool"), unless the
  // URL names an application_name of its own. Empty: libpq's default (none).
  std::string application_name;
  // For the one connection that keeps session state (the change feed's LISTEN): a direct
  // connection to PostgreSQL, when `url` goes through a pooler in transaction mode (PgBouncer),
  // which hands each transaction a different server connection. Empty: `url`.
  std::string listen_url;
  // Its application_name ("ironhold-3fa9c2d41b07 listen"); empty: the listener's own default.
  std::string listen_application_name;
};

// `url` (a libpq connection string or URI) with `name` as its fallback_application_name: what
// pg_stat_activity shows unless the URL sets application_name itself. Unchanged when `name` is
// empty or the URL already names one.
std::string with_application_name(const std::string& url, const std::string& name);

class Database {
 public:
  explicit Database(DatabaseOptions options);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const DatabaseOptions& options() const noexcept;
  // The connection string for the change feed's LISTEN: listen_url (else url), named
  // listen_application_name.
  std::string listen_url() const;
  // True when a connection can run `SELECT 1` now (for /healthz).
  bool ping() noexcept;

  struct Impl;
  Impl& impl() noexcept { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ironhold::db

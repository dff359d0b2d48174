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
  std::chrono::seconds connect_timeout{10};
  // The key that seals audit entries (kept beside the master key, never in the database). Without
  // it, writing an audit entry fails: an unsealed entry would break the chain.
  std::optional<crypto::Key> audit_key;
};

class Database {
 public:
  explicit Database(DatabaseOptions options);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const DatabaseOptions& options() const noexcept;
  // True when a connection can run `SELECT 1` now (for /healthz).
  bool ping() noexcept;

  struct Impl;
  Impl& impl() noexcept { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ironhold::db

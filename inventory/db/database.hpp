#pragma once
// A small pool of PostgreSQL connections. This header is free of libpqxx so that web/ and app/ can
// hold a Database; the stores in inventory/db/ run their SQL through db/transaction.hpp.
#include <chrono>
#include <memory>
#include <string>

namespace ironhold::db {

struct DatabaseOptions {
  std::string url;        // libpq connection string or URI
  int pool_size = 4;      // connections; the web layer runs database work on as many threads
  int max_retries = 5;    // for serialization failures and deadlocks
  std::chrono::seconds connect_timeout{10};
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

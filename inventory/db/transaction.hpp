#pragma once
// Internal to inventory/db/: run a function in a transaction on a pooled connection.
// Retries serialization failures and deadlocks (the whole function runs again, so it must not have
// side effects outside the transaction) and reconnects a broken connection before the function
// starts; an in-doubt commit is never retried.
#include <condition_variable>
#include <mutex>
#include <pqxx/pqxx>
#include <random>
#include <thread>
#include <vector>

#include "inventory/db/database.hpp"
#include "inventory/error.hpp"

namespace ironhold::db {

struct Database::Impl {
  DatabaseOptions options;
  std::mutex mutex;
  std::condition_variable returned;
  std::vector<std::unique_ptr<pqxx::connection>> idle;
  int open = 0;  // connections that exist, idle or leased

  std::unique_ptr<pqxx::connection> acquire();
  void release(std::unique_ptr<pqxx::connection> connection);
  std::unique_ptr<pqxx::connection> connect();
};

// A connection checked out of the pool for the lifetime of this object.
class Lease {
 public:
  explicit Lease(Database& db) : impl_(db.impl()), connection_(impl_.acquire()) {}
  ~Lease() { impl_.release(std::move(connection_)); }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  pqxx::connection& operator*() { return *connection_; }
  // Drop a connection that failed, so the pool opens a fresh one.
  void discard() { connection_.reset(); }

 private:
  Database::Impl& impl_;
  std::unique_ptr<pqxx::connection> connection_;
};

[[noreturn]] void rethrow_database_error(const std::exception& e);

// Runs attempt(connection) on a pooled connection until it returns: a broken connection is
// replaced and a serialization failure or deadlock tried again (up to max_retries), after a
// jittered pause so that two retrying transactions do not collide again in lockstep. An in-doubt
// commit and any other SQL error are thrown at once.
template <class Attempt>
auto with_retries(Database& db, Attempt&& attempt) {
  const int attempts = db.options().max_retries + 1;
  for (int n = 1;; ++n) {
    Lease lease(db);
    try {
      return attempt(*lease);
    } catch (const pqxx::in_doubt_error& e) {
      lease.discard();
      rethrow_database_error(e);
    } catch (const pqxx::broken_connection& e) {
      lease.discard();
      if (n >= attempts) rethrow_database_error(e);
    } catch (const pqxx::serialization_failure& e) {
      if (n >= attempts) rethrow_database_error(e);
    } catch (const pqxx::deadlock_detected& e) {
      if (n >= attempts) rethrow_database_error(e);
    } catch (const pqxx::sql_error& e) {
      rethrow_database_error(e);
    }
    thread_local std::minstd_rand jitter{std::random_device{}()};
    std::this_thread::sleep_for(std::chrono::milliseconds(5 * n + jitter() % 10));
  }
}

template <class Fn>
auto transact(Database& db, Fn&& fn, const char* isolation = nullptr) {
  return with_retries(db, [&](pqxx::connection& connection) {
    pqxx::work tx(connection);
    if (isolation) tx.exec0(std::string("SET TRANSACTION ISOLATION LEVEL ") + isolation);
    if constexpr (std::is_void_v<decltype(fn(tx))>) {
      fn(tx);
      tx.commit();
    } else {
      auto result = fn(tx);
      tx.commit();
      return result;
    }
  });
}

// For one statement, or reads that need not share a snapshot: each statement commits on its own
// (autocommit), so a single read is one round trip instead of three (BEGIN, the statement,
// COMMIT). On the hottest routes (a token's check, GET /api/v1/nodes/{id}) that was two thirds
// of the round trips. The function may run again after a broken connection, so it must be safe
// to repeat: reads, and single statements that are idempotent.
template <class Fn>
auto autocommit(Database& db, Fn&& fn) {
  return with_retries(db, [&](pqxx::connection& connection) {
    pqxx::nontransaction tx(connection);
    return fn(static_cast<pqxx::transaction_base&>(tx));
  });
}

}  // namespace ironhold::db

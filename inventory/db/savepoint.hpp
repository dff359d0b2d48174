#pragma once
// Internal to inventory/db/: a savepoint in a transaction, so that a statement PostgreSQL refuses
// undoes only what ran since the savepoint, and the transaction goes on.
//
// Not pqxx::subtransaction: libpqxx 6.4 sets a subtransaction's SAVEPOINT only at its first
// exec(), never for exec_params() or exec_prepared(), which is all this code runs. Through it, a
// refused statement aborted the whole transaction: one poll result or cloud instance the database
// refused lost every other one of its batch.
#include <pqxx/pqxx>
#include <string>

namespace ironhold::db {

class Savepoint {
 public:
  // Sets the savepoint (SAVEPOINT name) in tx at once.
  Savepoint(pqxx::transaction_base& tx, std::string name);
  // Rolls back to the savepoint unless release() ran: the transaction is usable again.
  ~Savepoint();
  Savepoint(const Savepoint&) = delete;
  Savepoint& operator=(const Savepoint&) = delete;

  // Keeps what ran since the savepoint (RELEASE SAVEPOINT).
  void release();

 private:
  pqxx::transaction_base& tx_;
  std::string name_;
  bool open_ = true;
};

}  // namespace ironhold::db

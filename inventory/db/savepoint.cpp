#include "inventory/db/savepoint.hpp"

#include "inventory/util/log.hpp"

namespace ironhold::db {

Savepoint::Savepoint(pqxx::transaction_base& tx, std::string name)
    : tx_(tx), name_(tx.quote_name(name)) {
  tx_.exec0("SAVEPOINT " + name_);
}

Savepoint::~Savepoint() {
  if (!open_) return;
  try {
    // Released too, so that a long batch does not pile up rolled-back savepoints.
    tx_.exec0("ROLLBACK TO SAVEPOINT " + name_ + "; RELEASE SAVEPOINT " + name_);
  } catch (const std::exception& e) {
    // The connection is gone or the transaction is beyond saving: the commit fails and says so.
    log::warn("could not roll back to a savepoint", {{"savepoint", name_}, {"error", e.what()}});
  }
}

void Savepoint::release() {
  tx_.exec0("RELEASE SAVEPOINT " + name_);
  open_ = false;
}

}  // namespace ironhold::db

#pragma once
// Internal to inventory/db/: an audit entry written inside a caller's transaction, so that what
// it records (a task's outcome) and the entry commit together or not at all.
#include <pqxx/pqxx>

#include "inventory/db/audit_store.hpp"

namespace ironhold::db {

void append_audit_entry(pqxx::work& tx, const AuditEntry& entry);

}  // namespace ironhold::db

#pragma once
// Internal to inventory/db/: an audit entry written inside a caller's transaction, so that what
// it records (a task's outcome) and the entry commit together or not at all. The entry is sealed
// into the chain there: the chain's head stays locked until the caller commits, so keep this the
// transaction's last statement where possible.
#include <pqxx/pqxx>

#include "inventory/audit/seal.hpp"
#include "inventory/db/audit_store.hpp"

namespace ironhold::db {

ChainHead append_audit_entry(Database& db, pqxx::work& tx, const AuditEntry& entry);

// The columns of an entry's sealed content, in the order content_from() reads them.
inline constexpr const char* sealed_columns =
    "rfc3339(at), actor, actor_id, action, target_type, target_id, target_name, outcome, "
    "request_id, project, details::text";
inline constexpr int sealed_column_count = 11;

// An entry's content from `sealed_columns`, starting at column `first`.
audit::SealedContent content_from(const pqxx::row& row, int first);

}  // namespace ironhold::db

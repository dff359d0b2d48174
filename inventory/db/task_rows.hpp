#pragma once
// Internal to inventory/db/: the column list every task query selects, the row → Task mapping,
// and inserting a task (shared by the task store and the lifecycle store).
#include <pqxx/pqxx>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/task_store.hpp"
#include "inventory/model/task.hpp"

namespace ironhold::db {

// Columns 0..18 of a task row (alias t).
inline constexpr const char* task_columns =
    "t.id, t.kind, t.node_id, t.node_name, t.parameters::text, t.state, t.steps::text, "
    "t.attempts, t.result::text, t.error, t.requested_by, t.bulk_id, t.automatic, "
    "t.cancel_requested, t.cancelled_by, rfc3339(t.created_at), rfc3339(t.started_at), "
    "rfc3339(t.finished_at), rfc3339(t.updated_at), t.project";

// "SELECT <task_columns> FROM tasks t WHERE t.id = $1::uuid", built once.
const std::string& task_by_id_sql();

Task task_from_row(const pqxx::row& row);

// Inserts one task (its write-only parameters sealed under its own id) and returns its id.
std::string insert_task(pqxx::work& tx, const crypto::SecretBox& box, const NewTask& request,
                        const std::string& node_id, const std::string& node_name,
                        const std::optional<std::string>& bulk_id);

}  // namespace ironhold::db

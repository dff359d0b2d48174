#pragma once
// Internal to inventory/db/: every task step that is sent, or ends, is an audit entry of its own,
// written in the transaction that records it.
#include <pqxx/pqxx>
#include <span>
#include <string>

#include "inventory/db/database.hpp"
#include "inventory/model/task.hpp"

namespace ironhold::db {

// Locks the task's row and returns its steps as stored, to compare with what is about to be saved.
std::vector<TaskStep> stored_steps_for_update(pqxx::work& tx, const std::string& task_id);

// Audits each step whose state moved to sending or to an end since `before`.
void audit_step_changes(Database& db, pqxx::work& tx, const std::string& task_id,
                        std::span<const TaskStep> before, std::span<const TaskStep> after);

}  // namespace ironhold::db

#include "inventory/db/task_step_audit.hpp"

#include "inventory/db/audit_append.hpp"
#include "inventory/db/row_values.hpp"

namespace ironhold::db {
namespace {

// The moments that matter afterwards: something went out to a machine, or a step ended.
bool worth_auditing(StepState state) {
  return state != StepState::pending && state != StepState::running;
}

}  // namespace

std::vector<TaskStep> stored_steps_for_update(pqxx::work& tx, const std::string& task_id) {
  const auto rows =
      tx.exec_params("SELECT steps::text FROM tasks WHERE id = $1::uuid FOR UPDATE", task_id);
  if (rows.empty()) return {};
  return steps_from_json(nlohmann::json::parse(rows[0][0].c_str(), nullptr, false));
}

void audit_step_changes(Database& db, pqxx::work& tx, const std::string& task_id,
                        std::span<const TaskStep> before, std::span<const TaskStep> after) {
  std::optional<pqxx::row> task;
  for (std::size_t i = 0; i < after.size(); ++i) {
    const TaskStep& step = after[i];
    const bool changed =
        i >= before.size() || before[i].state != step.state || before[i].name != step.name;
    if (!changed || !worth_auditing(step.state)) continue;
    if (!task)
      task = tx.exec_params1(
          "SELECT kind, node_id::text, node_name, requested_by, project FROM tasks "
          "WHERE id = $1::uuid",
          task_id);
    AuditEntry entry;
    entry.actor = optional_text((*task)[3]).value_or("ironhold");
    entry.project = optional_text((*task)[4]);
    entry.action = "task.step";
    entry.target_type = "node";
    entry.target_id = optional_text((*task)[1]);
    entry.target_name = optional_text((*task)[2]);
    entry.outcome = std::string(to_string(step.state));
    entry.details = {{"task_id", task_id},
                     {"kind", (*task)[0].as<std::string>()},
                     {"step", step.name},
                     {"detail", step.detail}};
    if (step.in_doubt) entry.details["in_doubt"] = *step.in_doubt;
    append_audit_entry(db, tx, entry);
  }
}

}  // namespace ironhold::db

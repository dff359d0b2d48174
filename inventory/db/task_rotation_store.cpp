// TaskStore's calls for BMC credential rotation: the policy scan that starts due rotations, the
// hold that quiets a node's BMC while its password changes, and the store of the new password.
#include "inventory/db/audit_append.hpp"
#include "inventory/db/event_append.hpp"
#include "inventory/db/node_secrets.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/savepoint.hpp"
#include "inventory/db/task_insert.hpp"
#include "inventory/db/task_store.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::db {

using nlohmann::json;

std::vector<std::string> TaskStore::create_due_rotations(int limit) {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<std::string> ids;
    const auto due = tx.exec_params(
        "SELECT n.id, n.name FROM nodes n JOIN projects p ON p.name = n.project "
        "  JOIN node_credentials c ON c.node_id = n.id "
        " WHERE p.bmc_password_max_age_days IS NOT NULL AND n.retired_at IS NULL "
        "   AND n.source = 'bmc' AND n.parent_id IS NULL AND n.driver IN ('redfish', 'ipmi') "
        "   AND NOT n.maintenance "
        "   AND c.updated_at < now() - make_interval(days => p.bmc_password_max_age_days) "
        "   AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.node_id = n.id "
        "         AND t.kind = 'credentials' AND (t.state IN ('queued', 'running') "
        "          OR (t.automatic AND t.created_at > now() - interval '1 day'))) "
        " ORDER BY c.updated_at LIMIT $1 FOR UPDATE OF n SKIP LOCKED",
        limit);
    for (const auto& row : due) {
      NewTask task;
      task.kind = TaskKind::credentials;
      task.node = row[0].as<std::string>();
      task.parameters = parse_task_parameters(TaskKind::credentials, json::object());
      task.requested_by = "ironhold (BMC password rotation policy)";
      task.automatic = true;
      Savepoint one(tx, "due_rotation");
      try {
        ids.push_back(create_task_in(tx, box_, refusals_, task));
        one.release();
      } catch (const Error& e) {
        log::warn("a due BMC password rotation was not started",
                  {{"node", row[1].as<std::string>()}, {"error", e.what()}});
      }
    }
    return ids;
  });
}

bool TaskStore::store_rotated_password(const std::string& id, const std::string& owner,
                                       const std::string& node_id,
                                       const std::string& new_password) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto held = tx.exec_params(
        "SELECT t.requested_by, t.project, n.name FROM tasks t JOIN nodes n ON n.id = t.node_id "
        " WHERE t.id = $1::uuid AND t.lease_owner = $2 AND t.state = 'running' "
        "   AND t.node_id = $3::uuid FOR UPDATE OF t",
        id, owner, node_id);
    if (held.empty()) return false;
    NodeSecrets secrets = read_node_secrets(tx, box_, node_id);
    if (!secrets.credentials)
      throw conflict("the node's credentials were removed while its password was being rotated");
    secrets.credentials->password = new_password;
    write_node_secrets(tx, box_, node_id, secrets);
    const std::string node_name = held[0][2].as<std::string>();
    append_event(tx, {node_id,
                      node_name,
                      "credentials_rotated",
                      Severity::info,
                      "the BMC password of \"" + secrets.credentials->username +
                          "\" was changed and the new one stored",
                      {{"task_id", id}, {"username", secrets.credentials->username}}});
    AuditEntry entry;
    entry.actor = optional_text(held[0][0]).value_or("ironhold");
    entry.project = optional_text(held[0][1]);
    entry.action = "node.credentials_rotated";
    entry.target_type = "node";
    entry.target_id = node_id;
    entry.target_name = node_name;
    entry.outcome = "succeeded";
    entry.details = {{"task_id", id}, {"username", secrets.credentials->username}};
    append_audit_entry(db_, tx, entry);
    return true;
  });
}

std::optional<int> TaskStore::hold_bmc(const std::string& id, const std::string& owner,
                                       const std::string& node_id, std::chrono::seconds hold) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<int> {
    const auto held = tx.exec_params(
        "SELECT 1 FROM tasks WHERE id = $1::uuid AND lease_owner = $2 AND state = 'running' "
        "   AND node_id = $3::uuid FOR UPDATE",
        id, owner, node_id);
    if (held.empty()) return std::nullopt;
    tx.exec_params(
        "UPDATE nodes SET bmc_quiet_until = now() + $2::integer * interval '1 second' "
        " WHERE id = $1::uuid OR parent_id = $1::uuid",
        node_id, static_cast<int>(hold.count()));
    return tx
        .exec_params1(
            "SELECT (SELECT count(*) FROM poll_schedule s JOIN nodes n ON n.id = s.node_id "
            "         WHERE (n.id = $1::uuid OR n.parent_id = $1::uuid) "
            "           AND s.lease_expires > now()) "
            "     + (SELECT count(*) FROM tasks t JOIN nodes n ON n.id = t.node_id "
            "         WHERE n.parent_id = $1::uuid AND t.state = 'running' "
            "           AND t.lease_expires > now())",
            node_id)[0]
        .as<int>();
  });
}

}  // namespace ironhold::db

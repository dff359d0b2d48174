#include "inventory/db/rollout_rows.hpp"

#include "inventory/db/audit_append.hpp"
#include "inventory/db/row_values.hpp"

namespace ironhold::db {

using nlohmann::json;

const char* const rollout_columns =
    "id, image_id, image_name, component, version, selector::text, canary, batch_size, "
    "max_parallel_per_rack, max_failures, health_gate_seconds, task_parameters::text, state, "
    "halt_reason, failures_accepted, requested_by, rfc3339(created_at), rfc3339(updated_at), "
    "rfc3339(finished_at), project";

Rollout rollout_from_row(const pqxx::row& r) {
  Rollout out;
  out.id = r[0].as<std::string>();
  out.image_id = r[1].as<std::string>();
  out.image_name = r[2].as<std::string>();
  out.component = r[3].as<std::string>();
  out.version = r[4].as<std::string>();
  out.selector = json::parse(r[5].c_str(), nullptr, false);
  out.canary = r[6].as<int>();
  out.batch_size = r[7].as<int>();
  out.max_parallel_per_rack = r[8].as<int>();
  out.max_failures = r[9].as<int>();
  out.health_gate_seconds = r[10].as<int>();
  out.task_parameters = json::parse(r[11].c_str(), nullptr, false);
  out.state = parse_enum<RolloutState>(r[12].c_str()).value_or(RolloutState::halted);
  out.halt_reason = optional_text(r[13]);
  out.failures_accepted = r[14].as<int>();
  out.requested_by = optional_text(r[15]);
  out.created_at = r[16].as<std::string>();
  out.updated_at = r[17].as<std::string>();
  out.finished_at = optional_text(r[18]);
  out.project = r[19].as<std::string>();
  return out;
}

std::vector<RolloutNode> read_rollout_nodes(pqxx::work& tx, const std::string& id) {
  std::vector<RolloutNode> nodes;
  for (const auto& r : tx.exec_params(
           "SELECT node_id, node_name, rack, position, batch, state, task_id, health_before, "
           "       from_version, rfc3339(gate_until), error, rfc3339(started_at), "
           "       rfc3339(finished_at) "
           "  FROM rollout_nodes WHERE rollout_id = $1::uuid ORDER BY position",
           id)) {
    RolloutNode n;
    n.node_id = r[0].as<std::string>();
    n.node_name = r[1].as<std::string>();
    n.rack = optional_text(r[2]);
    n.position = r[3].as<int>();
    n.batch = r[4].as<int>();
    n.state = parse_enum<RolloutNodeState>(r[5].c_str()).value_or(RolloutNodeState::failed);
    n.task_id = optional_text(r[6]);
    n.health_before = optional_text(r[7]);
    n.from_version = optional_text(r[8]);
    n.gate_until = optional_text(r[9]);
    n.error = optional_text(r[10]);
    n.started_at = optional_text(r[11]);
    n.finished_at = optional_text(r[12]);
    nodes.push_back(std::move(n));
  }
  return nodes;
}

void audit_rollout(Database& db, pqxx::work& tx, const Rollout& rollout, const std::string& actor,
                   const std::string& action, json details) {
  AuditEntry e;
  e.actor = actor;
  e.action = action;
  e.target_type = "firmware_rollout";
  e.target_id = rollout.id;
  e.target_name = rollout.image_name;
  e.project = rollout.project;
  e.outcome = "ok";
  e.details = std::move(details);
  append_audit_entry(db, tx, e);
}

std::optional<Rollout> read_rollout(pqxx::work& tx, const std::string& id, bool lock) {
  const auto rows = tx.exec_params(std::string("SELECT ") + rollout_columns +
                                       " FROM firmware_rollouts WHERE id = $1::uuid" +
                                       (lock ? " FOR UPDATE" : ""),
                                   id);
  if (rows.empty()) return std::nullopt;
  Rollout out = rollout_from_row(rows[0]);
  out.nodes = read_rollout_nodes(tx, id);
  return out;
}

}  // namespace ironhold::db

// RolloutStore::advance: one step of every rollout not yet finished, each in its own transaction
// under its row lock (SKIP LOCKED: a rollout another instance is advancing is left to it).
//
// A step: nodes whose firmware task ended go to their health gate (or fail); nodes in their gate
// that turned unhealthy or left the new version fail and halt the rollout, the others pass when
// their gate time is up; a failing canary, or failures beyond max_failures, halt it; a running
// rollout then starts the next nodes of its current batch (the task is created in the same
// transaction that marks the node); a rollout with every node ended succeeds (or, aborted,
// finishes).
#include <algorithm>

#include "inventory/db/event_append.hpp"
#include "inventory/db/rollout_rows.hpp"
#include "inventory/db/rollout_store.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/task_insert.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

// ok < warning < critical; unknown counts as worse than ok (a node that stopped answering).
int severity(const std::string& health) {
  if (health == "ok") return 0;
  if (health == "warning") return 1;
  if (health == "unknown") return 1;
  return 2;
}

void finish_node(pqxx::work& tx, const std::string& rollout, RolloutNode& n, RolloutNodeState state,
                 const std::optional<std::string>& error) {
  n.state = state;
  n.error = error;
  tx.exec_params(
      "UPDATE rollout_nodes SET state = $3, error = $4, finished_at = now() "
      " WHERE rollout_id = $1::uuid AND node_id = $2::uuid",
      rollout, n.node_id, std::string(to_string(state)), nullable(error));
}

class Advancer {
 public:
  Advancer(Database& db, pqxx::work& tx, const crypto::SecretBox& box, const Refusals& refusals,
           Rollout& r, RolloutAdvance& totals)
      : db_(db), tx_(tx), box_(box), refusals_(refusals), r_(r), totals_(totals) {}

  void run() {
    for (auto& n : r_.nodes) {
      if (n.state == RolloutNodeState::updating) follow_task(n);
      if (n.state == RolloutNodeState::gating) check_gate(n);
    }
    if (r_.state == RolloutState::running) check_failures();
    if (r_.state == RolloutState::running) start_nodes();
    finish_if_done();
  }

 private:
  // The node's firmware task has ended: into the gate, or failed.
  void follow_task(RolloutNode& n) {
    if (!n.task_id) return finish(n, RolloutNodeState::failed, "no task was recorded");
    const auto rows = tx_.exec_params(
        "SELECT state, error, result::text FROM tasks WHERE id = $1::uuid", *n.task_id);
    if (rows.empty()) return finish(n, RolloutNodeState::failed, "its task is gone");
    const std::string state = rows[0][0].as<std::string>();
    if (state == "queued" || state == "running") return;
    if (state != "succeeded") {
      const std::string error =
          rows[0][1].is_null() ? "its task was " + state : rows[0][1].as<std::string>();
      return finish(n, RolloutNodeState::failed, error);
    }
    const json result =
        json::parse(rows[0][2].is_null() ? "null" : rows[0][2].c_str(), nullptr, false);
    const bool confirmed = result.is_object() && result.value("confirmed", false);
    if (!confirmed)
      return finish(n, RolloutNodeState::failed,
                    "the new firmware is staged but not confirmed (the node is off, or its "
                    "update was asked not to reset it)");
    n.state = RolloutNodeState::gating;
    n.from_version = result.value("from", std::string());
    tx_.exec_params(
        "UPDATE rollout_nodes SET state = 'gating', from_version = $3, "
        "       gate_until = now() + make_interval(secs => $4) "
        " WHERE rollout_id = $1::uuid AND node_id = $2::uuid",
        r_.id, n.node_id, *n.from_version, r_.health_gate_seconds);
    n.gate_until.reset();  // read back below as "not yet passed"
    check_gate(n);
  }

  // In its gate: healthy and on the new version until the gate time is up.
  void check_gate(RolloutNode& n) {
    const auto rows = tx_.exec_params(
        "SELECT n.health, n.retired_at IS NOT NULL, "
        "       (SELECT version FROM firmware_records f WHERE f.node_id = n.id "
        "          AND f.component = $3 AND f.valid_to IS NULL LIMIT 1), "
        "       (SELECT gate_until <= now() FROM rollout_nodes "
        "         WHERE rollout_id = $1::uuid AND node_id = n.id) "
        "  FROM nodes n WHERE n.id = $2::uuid",
        r_.id, n.node_id, r_.component);
    if (rows.empty() || rows[0][1].as<bool>())
      return finish(n, RolloutNodeState::failed, "the node was retired during its health gate");
    const std::string health = rows[0][0].as<std::string>();
    const std::string before = n.health_before.value_or("ok");
    if (health == "critical" || severity(health) > severity(before)) {
      const std::string why =
          "turned " + health + " during its health gate (it was " + before + " before its update)";
      finish(n, RolloutNodeState::failed, why);
      return halt("node " + n.node_name + " " + why);
    }
    const auto version = optional_text(rows[0][2]);
    if (version != r_.version) {
      const std::string why = "reports " + r_.component + " " + version.value_or("nothing") +
                              " during its health gate, not " + r_.version;
      finish(n, RolloutNodeState::failed, why);
      return halt("node " + n.node_name + " " + why);
    }
    if (!rows[0][3].is_null() && rows[0][3].as<bool>())
      finish(n, RolloutNodeState::succeeded, std::nullopt);
  }

  // A failed canary, or more failures than allowed (beyond those accepted on a resume).
  void check_failures() {
    int failed = 0;
    const RolloutNode* failed_canary = nullptr;
    for (const auto& n : r_.nodes)
      if (n.state == RolloutNodeState::failed) {
        ++failed;
        if (n.batch == 0 && r_.canary > 0 && !failed_canary) failed_canary = &n;
      }
    const int counted = failed - r_.failures_accepted;
    if (counted <= 0) return;
    if (failed_canary)
      return halt("canary node " + failed_canary->node_name +
                  " failed: " + failed_canary->error.value_or("no reason recorded"));
    if (counted > r_.max_failures)
      halt(std::to_string(counted) + " nodes failed, more than max_failures (" +
           std::to_string(r_.max_failures) + ")");
  }

  void start_nodes() {
    const auto starts = nodes_to_start(r_.nodes, r_.max_parallel_per_rack);
    for (const std::size_t i : starts) start(r_.nodes[i]);
  }

  // The node's task, created with the node's row: either both are written or neither.
  void start(RolloutNode& n) {
    NewTask task;
    task.kind = TaskKind::firmware;
    task.node = n.node_id;
    task.parameters.parameters = r_.task_parameters;
    task.requested_by = "rollout " + r_.id;
    task.automatic = true;
    std::string task_id;
    try {
      // Its refusals are found by reading, before anything is written, so the transaction
      // carries on after one.
      task_id = create_task_in(tx_, box_, refusals_, task);
    } catch (const Error& e) {
      // In maintenance, retired, being provisioned: this node sits the rollout out.
      return finish(n, RolloutNodeState::skipped, e.what());
    }
    const auto health =
        tx_.exec_params1("SELECT health FROM nodes WHERE id = $1::uuid", n.node_id)[0]
            .as<std::string>();
    n.state = RolloutNodeState::updating;
    n.task_id = task_id;
    n.health_before = health;
    tx_.exec_params(
        "UPDATE rollout_nodes SET state = 'updating', task_id = $3::uuid, health_before = $4, "
        "       started_at = now() "
        " WHERE rollout_id = $1::uuid AND node_id = $2::uuid",
        r_.id, n.node_id, task_id, health);
    ++totals_.tasks_created;
    changed_ = true;
  }

  void finish_if_done() {
    const bool all_ended = std::all_of(r_.nodes.begin(), r_.nodes.end(),
                                       [](const RolloutNode& n) { return is_final(n.state); });
    if (!all_ended) {
      if (changed_)
        tx_.exec_params("UPDATE firmware_rollouts SET updated_at = now() WHERE id = $1::uuid",
                        r_.id);
      return;
    }
    if (r_.state == RolloutState::running) {
      tx_.exec_params(
          "UPDATE firmware_rollouts SET state = 'succeeded', updated_at = now(), "
          "       finished_at = now() WHERE id = $1::uuid",
          r_.id);
      audit_rollout(db_, tx_, r_, "rollout", "rollout.succeeded", counts());
      ++totals_.rollouts_ended;
    } else if (r_.state == RolloutState::aborted) {
      tx_.exec_params(
          "UPDATE firmware_rollouts SET updated_at = now(), finished_at = now() "
          " WHERE id = $1::uuid",
          r_.id);
      ++totals_.rollouts_ended;
    }
    // Paused or halted with every node ended: it stays so until an operator resumes it (and it
    // then succeeds) or aborts it.
  }

  void finish(RolloutNode& n, RolloutNodeState state, const std::optional<std::string>& error) {
    finish_node(tx_, r_.id, n, state, error);
    ++totals_.nodes_finished;
    changed_ = true;
  }

  void halt(const std::string& reason) {
    if (r_.state == RolloutState::halted || r_.state == RolloutState::aborted) return;
    r_.state = RolloutState::halted;
    r_.halt_reason = reason;
    tx_.exec_params(
        "UPDATE firmware_rollouts SET state = 'halted', halt_reason = $2, updated_at = now() "
        " WHERE id = $1::uuid",
        r_.id, reason);
    json details = counts();
    details["reason"] = reason;
    audit_rollout(db_, tx_, r_, "rollout", "rollout.halted", std::move(details));
    log::warn("a firmware rollout halted", {{"rollout", r_.id}, {"reason", reason}});
    ++totals_.rollouts_ended;
    changed_ = true;
  }

  json counts() const {
    json out = json::object();
    for (const auto& n : r_.nodes) {
      const std::string state(to_string(n.state));
      out[state] = out.value(state, 0) + 1;
    }
    return out;
  }

  Database& db_;
  pqxx::work& tx_;
  const crypto::SecretBox& box_;
  const Refusals& refusals_;
  Rollout& r_;
  RolloutAdvance& totals_;
  bool changed_ = false;
};

}  // namespace

RolloutAdvance RolloutStore::advance() {
  RolloutAdvance totals;
  const auto ids = transact(db_, [&](pqxx::work& tx) {
    std::vector<std::string> out;
    for (const auto& r :
         tx.exec("SELECT id FROM firmware_rollouts WHERE finished_at IS NULL ORDER BY created_at"))
      out.push_back(r[0].as<std::string>());
    return out;
  });
  for (const auto& id : ids) {
    try {
      transact(db_, [&](pqxx::work& tx) {
        const auto locked = tx.exec_params(
            "SELECT 1 FROM firmware_rollouts WHERE id = $1::uuid AND finished_at IS NULL "
            "FOR UPDATE SKIP LOCKED",
            id);
        if (locked.empty()) return;  // another instance is on it, or it ended
        auto rollout = read_rollout(tx, id, false);
        if (!rollout) return;
        RolloutAdvance step;
        Advancer(db_, tx, box_, tasks_.refusals(), *rollout, step).run();
        totals.tasks_created += step.tasks_created;
        totals.nodes_finished += step.nodes_finished;
        totals.rollouts_ended += step.rollouts_ended;
      });
    } catch (const std::exception& e) {
      // One rollout's trouble (a database hiccup) must not stop the others.
      log::warn("could not advance a firmware rollout; retrying",
                {{"rollout", id}, {"error", e.what()}});
    }
  }
  return totals;
}

}  // namespace ironhold::db

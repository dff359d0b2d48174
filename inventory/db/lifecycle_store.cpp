#include "inventory/db/lifecycle_store.hpp"

#include "inventory/db/event_append.hpp"
#include "inventory/db/task_rows.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"

namespace ironhold::db {
namespace {

struct LockedNode {
  std::string id, name;
  Lifecycle lifecycle = Lifecycle::enrolled;
  Source source = Source::bmc;
  bool has_parent = false;
};

LockedNode lock_node(pqxx::work& tx, std::string_view key) {
  const std::string k(key);
  const auto rows = tx.exec_params(
      is_uuid(k) ? "SELECT id, name, lifecycle, source, parent_id IS NOT NULL FROM nodes "
                   "WHERE id = $1::uuid AND retired_at IS NULL FOR UPDATE"
                 : "SELECT id, name, lifecycle, source, parent_id IS NOT NULL FROM nodes "
                   "WHERE name = $1 AND retired_at IS NULL FOR UPDATE",
      k);
  if (rows.empty()) throw not_found("no node \"" + k + "\" in service");
  LockedNode n;
  n.id = rows[0][0].as<std::string>();
  n.name = rows[0][1].as<std::string>();
  n.lifecycle = parse_enum<Lifecycle>(rows[0][2].c_str()).value_or(Lifecycle::enrolled);
  n.source = parse_enum<Source>(rows[0][3].c_str()).value_or(Source::bmc);
  n.has_parent = rows[0][4].as<bool>();
  return n;
}

void move(pqxx::work& tx, const LockedNode& node, Lifecycle to, const std::string& actor,
          LifecycleAction action) {
  tx.exec_params("UPDATE nodes SET lifecycle = $2, updated_at = now() WHERE id = $1::uuid", node.id,
                 std::string(to_string(to)));
  const nlohmann::json details = {{"from", to_string(node.lifecycle)},
                                  {"to", to_string(to)},
                                  {"action", to_string(action)},
                                  {"by", actor}};
  const std::string message = std::string(to_string(node.lifecycle)) + " -> " +
                              std::string(to_string(to)) + " (" + std::string(to_string(action)) +
                              " by " + actor + ")";
  append_event(tx, {node.id, node.name, "lifecycle", Severity::info, message, details});
}

}  // namespace

LifecycleOutcome LifecycleStore::apply(std::string_view key, LifecycleAction action,
                                       const std::string& actor) {
  LifecycleOutcome out;
  const auto transition = transact(db_, [&](pqxx::work& tx) {
    const LockedNode node = lock_node(tx, key);
    out.from = node.lifecycle;
    const LifecycleTransition t = check_transition(node.lifecycle, action);
    if (node.source == Source::cloud && t.effect != LifecycleEffect::retire)
      throw unprocessable(
          "node \"" + node.name +
              "\" is a cloud instance: its lifecycle follows its provider (reprovision it, or "
              "retire it once the provider no longer lists it)",
          "action");
    switch (t.effect) {
      case LifecycleEffect::inspect: {
        if (node.has_parent)
          throw unprocessable("node \"" + node.name +
                                  "\" is a System read through its parent's BMC: manage the "
                                  "parent instead",
                              "action");
        tx.exec_params(
            "UPDATE poll_schedule SET next_due = now() WHERE node_id = $1::uuid AND kind = "
            "'inventory'",
            node.id);
        move(tx, node, t.to, actor, action);
        break;
      }
      case LifecycleEffect::clean: {
        NewTask clean;
        clean.kind = TaskKind::clean;
        clean.node = node.id;
        clean.parameters = parse_task_parameters(TaskKind::clean, nlohmann::json::object());
        clean.requested_by = actor;
        const std::string id = insert_task(tx, box_, clean, node.id, node.name, std::nullopt);
        out.task = task_from_row(tx.exec_params1(task_by_id_sql(), id));
        move(tx, node, t.to, actor, action);
        break;
      }
      case LifecycleEffect::mark_available:
        move(tx, node, t.to, actor, action);
        break;
      case LifecycleEffect::retire:
        break;  // NodeStore::retire below: the same rules as DELETE /nodes/{id}
    }
    out.node.id = node.id;
    return t;
  });
  if (transition.effect == LifecycleEffect::retire)
    out.node = nodes_.retire(out.node.id);
  else
    out.node = nodes_.get(out.node.id);
  return out;
}

}  // namespace ironhold::db

#include "inventory/db/task_store.hpp"

#include <openssl/crypto.h>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/audit_append.hpp"
#include "inventory/db/bmc_target_columns.hpp"
#include "inventory/db/db_json.hpp"
#include "inventory/db/event_append.hpp"
#include "inventory/db/node_query_sql.hpp"
#include "inventory/db/node_rows.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/task_insert.hpp"
#include "inventory/db/task_parameters.hpp"
#include "inventory/db/task_rows.hpp"
#include "inventory/db/task_step_audit.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

// The advisory lock claimers take turns on ("IRNHTASK" as a number): one value for the whole
// database, outside any range another lock of ours uses.
constexpr long long kClaimLock = 0x49524E485441534BLL;

// The most nodes one bulk action may take.
constexpr int kMaxBulk = 10000;

// Idempotency-Key records live this long; after that the key may be used afresh.
constexpr const char* kKeyLifetime = "interval '24 hours'";

// A uuid[] literal; the ids come from the database, so they need no quoting.
std::string uuid_array(const std::vector<std::string>& ids) {
  std::string out = "{";
  for (const auto& id : ids) {
    if (out.size() > 1) out += ',';
    out += id;
  }
  out += '}';
  return out;
}

std::vector<Task> tasks_by_ids(pqxx::work& tx, const std::vector<std::string>& ids) {
  std::vector<Task> out;
  for (const auto& id : ids) {
    const auto rows = tx.exec_params(task_by_id_sql(), id);
    if (!rows.empty()) out.push_back(task_from_row(rows[0]));
  }
  return out;
}

// Inserts the key's record, or finds the earlier one: its task ids when the request is the same.
std::optional<CreatedTasks> claim_key(pqxx::work& tx, const IdempotencyKey& key) {
  if (claim_idempotency_key(tx, key)) return std::nullopt;
  const auto earlier = tx.exec_params1(
      "SELECT array_to_json(task_ids)::text, bulk_id FROM idempotency_keys "
      "WHERE token_id = $1 AND key = $2",
      key.token_id, key.key);
  std::vector<std::string> ids;
  for (const auto& id : json::parse(earlier[0].c_str())) ids.push_back(id.get<std::string>());
  CreatedTasks replay;
  replay.tasks = tasks_by_ids(tx, ids);
  if (!earlier[1].is_null()) replay.bulk_id = earlier[1].as<std::string>();
  replay.replayed = true;
  return replay;
}

void remember_key(pqxx::work& tx, const IdempotencyKey& key, const std::vector<std::string>& ids,
                  const std::optional<std::string>& bulk_id) {
  tx.exec_params(
      "UPDATE idempotency_keys SET task_ids = $3::uuid[], bulk_id = $4::uuid "
      "WHERE token_id = $1 AND key = $2",
      key.token_id, key.key, uuid_array(ids), nullable(bulk_id));
}

// A reprovision moves the node to provisioning the moment its task exists; the task's end
// moves it on (TaskStore::finish).
void start_provisioning(pqxx::work& tx, const TargetNode& node, const std::string& task_id) {
  tx.exec_params(
      "UPDATE nodes SET lifecycle = 'provisioning', updated_at = now() WHERE id = $1::uuid",
      node.id);
  const std::string message = std::string(to_string(node.lifecycle)) + " -> provisioning";
  append_event(
      tx, {node.id,
           node.name,
           "lifecycle",
           Severity::info,
           message,
           {{"from", to_string(node.lifecycle)}, {"to", "provisioning"}, {"task_id", task_id}}});
}

json open_task_secrets(const crypto::SecretBox& box, const std::string& task_id,
                       const char* sealed_hex) {
  std::vector<std::uint8_t> sealed;
  if (!crypto::from_hex(sealed_hex, sealed))
    throw Error(ErrorKind::internal, "the sealed parameters of task " + task_id + " are corrupt");
  std::string payload = box.open(sealed, task_id);
  json doc = json::parse(payload, nullptr, false);
  OPENSSL_cleanse(payload.data(), payload.size());
  return doc.is_object() ? doc : json::object();
}

// The node and BMC facts a claimed task needs (a System behind a shared BMC talks through its
// parent's endpoint and session).
void load_target(pqxx::work& tx, const crypto::SecretBox& box, TaskJob& job) {
  if (!job.task.node_id) return;
  const auto rows = tx.exec_params(
      "SELECT n.source, n.driver, n.retired_at IS NOT NULL, n.maintenance, n.system_id, "
      "       n.provider_id, n.cloud_account_id, b.id, b.name, b.endpoint, b.options::text, "
      "       b.tls_fingerprint, "
      "       (SELECT encode(c.sealed, 'hex') FROM node_credentials c WHERE c.node_id = b.id) "
      "  FROM nodes n JOIN nodes b ON b.id = coalesce(n.parent_id, n.id) WHERE n.id = $1::uuid",
      *job.task.node_id);
  if (rows.empty()) return;
  const auto& r = rows[0];
  job.node_exists = true;
  job.source = parse_enum<Source>(r[0].c_str()).value_or(Source::bmc);
  job.driver = r[1].as<std::string>();
  job.node_retired = r[2].as<bool>();
  job.maintenance = r[3].as<bool>();
  if (!r[4].is_null()) job.system_id = r[4].as<std::string>();
  if (!r[5].is_null()) job.provider_id = r[5].as<std::string>();
  if (!r[6].is_null()) job.cloud_account_id = r[6].as<std::string>();
  job.target.node_id = r[7].as<std::string>();
  job.target.node_name = r[8].as<std::string>();
  read_bmc_columns(job.target, r, 9, box);
  job.limiter_key = job.source == Source::cloud
                        ? "cloud:" + job.cloud_account_id.value_or(*job.task.node_id)
                        : "bmc:" + job.target.node_id;
}

std::string outcome_message(const Task& task, TaskState state,
                            const std::optional<std::string>& error) {
  std::string what = std::string(to_string(task.kind));
  if (task.parameters.contains("action") && task.parameters["action"].is_string())
    what += " " + task.parameters["action"].get<std::string>();
  std::string message = what + " " + std::string(to_string(state));
  if (error) message += ": " + *error;
  return message;
}

}  // namespace

std::vector<Node> matching_nodes(pqxx::work& tx, const NodeFilter& filter, int cap) {
  SqlParams params;
  const std::string where = node_where(filter, params);
  const std::string limit = params.add(std::to_string(cap + 1));
  const std::string sql = std::string("SELECT ") + node_columns + " FROM nodes n WHERE " + where +
                          " AND n.retired_at IS NULL ORDER BY n.name COLLATE \"C\", n.id LIMIT " +
                          limit + "::integer";
  const auto rows = tx.exec_params(sql, pqxx::prepare::make_dynamic_params(params.values));
  if (static_cast<int>(rows.size()) > cap)
    throw unprocessable("the selector matches more than " + std::to_string(cap) +
                            " nodes; narrow it (one action per rack or site)",
                        "selector");
  std::vector<Node> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(node_from_row(r));
  return out;
}

bool claim_idempotency_key(pqxx::work& tx, const IdempotencyKey& key) {
  // A record older than the key's lifetime no longer counts.
  tx.exec_params(std::string("DELETE FROM idempotency_keys WHERE token_id = $1 AND key = $2 "
                             "AND created_at < now() - ") +
                     kKeyLifetime,
                 key.token_id, key.key);
  const auto inserted = tx.exec_params(
      "INSERT INTO idempotency_keys (token_id, key, request_hash) VALUES ($1, $2, $3) "
      "ON CONFLICT DO NOTHING RETURNING 1",
      key.token_id, key.key, key.request_hash);
  if (!inserted.empty()) return true;
  const auto earlier =
      tx.exec_params1("SELECT request_hash FROM idempotency_keys WHERE token_id = $1 AND key = $2",
                      key.token_id, key.key);
  if (earlier[0].as<std::string>() != key.request_hash)
    throw unprocessable(
        "this Idempotency-Key was already used with a different request; use a new key for a "
        "new request",
        "Idempotency-Key");
  return false;
}

std::string create_task_in(pqxx::work& tx, const crypto::SecretBox& box, const Refusals& refusals,
                           const NewTask& request) {
  const TargetNode node = resolve_node(tx, request.node);
  check_action_fits(request, node);
  const NewTask task = task_for_node(tx, request, node, refusals);
  std::string id = insert_task(tx, box, task, node.id, node.name, std::nullopt);
  if (request.kind == TaskKind::reprovision) start_provisioning(tx, node, id);
  return id;
}

CreatedTasks TaskStore::create(std::span<const NewTask> tasks,
                               const std::optional<IdempotencyKey>& key) {
  return transact(db_, [&](pqxx::work& tx) {
    if (key)
      if (auto replay = claim_key(tx, *key)) return std::move(*replay);
    std::vector<std::string> ids;
    for (const auto& request : tasks) ids.push_back(create_task_in(tx, box_, refusals_, request));
    if (key) remember_key(tx, *key, ids, std::nullopt);
    CreatedTasks created;
    created.tasks = tasks_by_ids(tx, ids);
    return created;
  });
}

std::vector<Node> TaskStore::select_nodes(const NodeFilter& filter, int cap) {
  return transact(db_, [&](pqxx::work& tx) { return matching_nodes(tx, filter, cap); });
}

CreatedTasks TaskStore::create_bulk(const NewBulk& bulk, const std::optional<IdempotencyKey>& key) {
  return transact(db_, [&](pqxx::work& tx) {
    if (key)
      if (auto replay = claim_key(tx, *key)) return std::move(*replay);
    const std::vector<Node> nodes = matching_nodes(tx, bulk.filter, kMaxBulk);
    const std::string bulk_id =
        tx.exec_params1(
              "INSERT INTO bulk_actions (action, selector, parameters, max_parallel, matched, "
              "                          requested_by) "
              "VALUES ($1, $2::jsonb, $3::jsonb, $4, $5, $6) RETURNING id",
              std::string(to_string(bulk.task.kind)), db_json(bulk.selector),
              db_json(bulk.task.parameters.parameters), bulk.max_parallel,
              static_cast<int>(nodes.size()), bulk.task.requested_by)[0]
            .as<std::string>();
    std::vector<std::string> ids;
    for (const auto& node : nodes) {
      TargetNode target{node.id,        node.name,   node.source, node.maintenance,
                        node.lifecycle, node.driver, node.model};
      check_action_fits(bulk.task, target);
      const NewTask task = task_for_node(tx, bulk.task, target, refusals_);
      ids.push_back(insert_task(tx, box_, task, node.id, node.name, bulk_id));
      if (bulk.task.kind == TaskKind::reprovision) start_provisioning(tx, target, ids.back());
    }
    if (key) remember_key(tx, *key, ids, bulk_id);
    CreatedTasks created;
    created.bulk_id = bulk_id;
    created.tasks = tasks_by_ids(tx, ids);
    return created;
  });
}

Task TaskStore::get(const std::string& id) {
  if (!is_uuid(id)) throw not_found("no task \"" + id + "\"");
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(task_by_id_sql(), id);
    if (rows.empty()) throw not_found("no task \"" + id + "\"");
    return task_from_row(rows[0]);
  });
}

TaskPage TaskStore::list(const TaskFilter& f) {
  return transact(db_, [&](pqxx::work& tx) {
    std::optional<std::string> node_id;
    if (f.node) {
      const bool by_id = is_uuid(*f.node);
      // Only among the nodes the caller may see: another project's name is unknown here.
      const auto rows =
          tx.exec_params(std::string(by_id ? "SELECT id FROM nodes WHERE id = $1::uuid"
                                           : "SELECT id FROM nodes WHERE name = $1") +
                             " AND ($2::text[] IS NULL OR project = ANY($2::text[]))",
                         *f.node, nullable(scope_array(f.scope)));
      if (rows.empty()) throw not_found("no node \"" + *f.node + "\"");
      // A name may belong to retired nodes too: their tasks are the name's history as well.
      std::vector<std::string> ids;
      for (const auto& r : rows) ids.push_back(r[0].as<std::string>());
      node_id = uuid_array(ids);
    }
    const std::optional<std::string> state =
        f.state ? std::optional<std::string>(std::string(to_string(*f.state))) : std::nullopt;
    const std::optional<std::string> kind =
        f.kind ? std::optional<std::string>(std::string(to_string(*f.kind))) : std::nullopt;
    const auto rows = tx.exec_params(
        std::string("SELECT ") + task_columns +
            " FROM tasks t"
            " WHERE ($1::uuid[] IS NULL OR t.node_id = ANY($1::uuid[]))"
            "   AND ($2::text IS NULL OR t.state = $2) AND ($3::text IS NULL OR t.kind = $3)"
            "   AND ($4::uuid IS NULL OR t.bulk_id = $4::uuid)"
            "   AND ($8::text[] IS NULL OR t.project = ANY($8::text[]))"
            "   AND ($5::timestamptz IS NULL OR (t.created_at, t.id) < ($5::timestamptz, $6::uuid))"
            " ORDER BY t.created_at DESC, t.id DESC LIMIT $7",
        nullable(node_id), nullable(state), nullable(kind), nullable(f.bulk_id),
        nullable(f.after_created_at), nullable(f.after_id), f.limit + 1,
        nullable(scope_array(f.scope)));
    TaskPage page;
    for (const auto& r : rows) {
      if (static_cast<int>(page.items.size()) == f.limit) {
        page.more = true;
        break;
      }
      page.items.push_back(task_from_row(r));
    }
    return page;
  });
}

Task TaskStore::request_cancel(const std::string& id, const std::string& actor) {
  if (!is_uuid(id)) throw not_found("no task \"" + id + "\"");
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params("SELECT state FROM tasks WHERE id = $1::uuid FOR UPDATE", id);
    if (rows.empty()) throw not_found("no task \"" + id + "\"");
    const auto state = parse_enum<TaskState>(rows[0][0].c_str()).value_or(TaskState::failed);
    if (is_final(state))
      throw conflict("the task has already ended (" + std::string(to_string(state)) +
                     "); there is nothing to cancel");
    if (state == TaskState::queued) {
      // Nothing was sent: the task simply never runs.
      tx.exec_params(
          "UPDATE tasks SET state = 'cancelled', cancel_requested = true, cancelled_by = $2, "
          "       finished_at = now(), updated_at = now(), error = 'cancelled before it started', "
          "       sealed_secrets = NULL, secrets_key_id = NULL "
          " WHERE id = $1::uuid",
          id, actor);
    } else {
      tx.exec_params(
          "UPDATE tasks SET cancel_requested = true, cancelled_by = $2, updated_at = now() "
          " WHERE id = $1::uuid",
          id, actor);
    }
    return task_from_row(tx.exec_params1(task_by_id_sql(), id));
  });
}

std::vector<TaskJob> TaskStore::claim(const std::string& owner, int limit,
                                      std::chrono::seconds lease) {
  if (limit <= 0) return {};
  return transact(db_, [&](pqxx::work& tx) {
    // Claimers take turns (a transaction-scoped advisory lock, held for the few milliseconds a
    // claim takes), so that the two limits below hold across instances too; SKIP LOCKED still
    // passes over a task that a cancel is changing.
    tx.exec("SELECT pg_advisory_xact_lock(" + std::to_string(kClaimLock) + ")");
    // Claimable: the oldest unfinished task of its node (the node lock), queued or running under
    // an expired lease (its worker died), due, within its bulk action's max_parallel, and not
    // held off by a password rotation at its BMC (migration 0032).
    const auto claimed = tx.exec_params(
        "WITH heads AS ("
        "  SELECT DISTINCT ON (coalesce(t.node_id, t.id)) t.id, t.bulk_id, t.created_at, t.state,"
        "         t.lease_expires, t.not_before, t.kind, t.node_id"
        "    FROM tasks t WHERE t.state IN ('queued', 'running')"
        "   ORDER BY coalesce(t.node_id, t.id), t.created_at, t.id), "
        "ready AS ("
        "  SELECT h.id, h.bulk_id, h.created_at,"
        "         row_number() OVER (PARTITION BY h.bulk_id ORDER BY h.created_at, h.id) AS rank"
        "    FROM heads h"
        "   WHERE h.not_before <= now()"
        "     AND (h.state = 'queued' OR h.lease_expires IS NULL OR h.lease_expires < now())"
        "     AND (h.kind = 'credentials' OR NOT EXISTS (SELECT 1 FROM nodes q"
        "           WHERE q.id = h.node_id AND q.bmc_quiet_until > now()))), "
        "allowed AS ("
        "  SELECT r.id, r.created_at FROM ready r LEFT JOIN bulk_actions b ON b.id = r.bulk_id"
        "   WHERE r.bulk_id IS NULL"
        "      OR r.rank <= b.max_parallel - (SELECT count(*) FROM tasks x"
        "                                       WHERE x.bulk_id = r.bulk_id AND x.state = 'running'"
        "                                         AND x.lease_expires >= now())"
        "   ORDER BY r.created_at, r.id LIMIT $2), "
        "locked AS ("
        "  SELECT t.id FROM tasks t WHERE t.id IN (SELECT id FROM allowed)"
        "   FOR UPDATE OF t SKIP LOCKED) "
        "UPDATE tasks t SET state = 'running', lease_owner = $1, "
        "       lease_expires = now() + $3::integer * interval '1 second', "
        "       attempts = t.attempts + 1, started_at = coalesce(t.started_at, now()), "
        "       updated_at = now() "
        "  FROM locked WHERE t.id = locked.id "
        "RETURNING t.id, encode(t.sealed_secrets, 'hex')",
        owner, limit, static_cast<int>(lease.count()));
    std::vector<TaskJob> jobs;
    jobs.reserve(claimed.size());
    for (const auto& c : claimed) {
      TaskJob job;
      const std::string id = c[0].as<std::string>();
      job.task = task_from_row(tx.exec_params1(task_by_id_sql(), id));
      if (!c[1].is_null()) {
        try {
          job.secrets = open_task_secrets(box_, id, c[1].c_str());
        } catch (const Error& e) {
          log::warn("cannot open a task's sealed parameters", {{"task", id}, {"error", e.what()}});
        }
      }
      load_target(tx, box_, job);
      jobs.push_back(std::move(job));
    }
    return jobs;
  });
}

LeaseCheck TaskStore::renew(const std::string& id, const std::string& owner,
                            std::chrono::seconds lease) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(
        "UPDATE tasks SET lease_expires = now() + $3::integer * interval '1 second' "
        " WHERE id = $1::uuid AND lease_owner = $2 AND state = 'running' "
        "RETURNING cancel_requested",
        id, owner, static_cast<int>(lease.count()));
    LeaseCheck check;
    if (rows.empty()) return check;
    check.owned = true;
    check.cancel_requested = rows[0][0].as<bool>();
    return check;
  });
}

bool TaskStore::save_steps(const std::string& id, const std::string& owner,
                           std::span<const TaskStep> steps) {
  return transact(db_, [&](pqxx::work& tx) {
    const std::vector<TaskStep> before = stored_steps_for_update(tx, id);
    const auto r = tx.exec_params(
        "UPDATE tasks SET steps = $3::jsonb, updated_at = now() "
        " WHERE id = $1::uuid AND lease_owner = $2 AND state = 'running'",
        id, owner, db_json(steps_to_json(steps)));
    if (r.affected_rows() != 1) return false;
    audit_step_changes(db_, tx, id, before, steps);
    return true;
  });
}

bool TaskStore::finish(const std::string& id, const std::string& owner, TaskState state,
                       const json& result, const std::optional<std::string>& error,
                       std::span<const TaskStep> steps) {
  // An error may quote a BMC, NUL bytes and all: text columns take it NUL-free.
  const std::optional<std::string> error_text =
      error ? std::optional<std::string>(db_text(*error)) : std::nullopt;
  return transact(db_, [&](pqxx::work& tx) {
    const std::vector<TaskStep> before = stored_steps_for_update(tx, id);
    const auto r = tx.exec_params(
        "UPDATE tasks SET state = $3, result = $4::jsonb, error = $5, steps = $6::jsonb, "
        "       finished_at = now(), updated_at = now(), lease_owner = NULL, "
        "       lease_expires = NULL, sealed_secrets = NULL, secrets_key_id = NULL "
        " WHERE id = $1::uuid AND lease_owner = $2 AND state = 'running'",
        id, owner, std::string(to_string(state)), db_json(result), nullable(error_text),
        db_json(steps_to_json(steps)));
    if (r.affected_rows() != 1) return false;
    audit_step_changes(db_, tx, id, before, steps);
    const Task task = task_from_row(tx.exec_params1(task_by_id_sql(), id));
    if (task.kind == TaskKind::credentials && task.node_id)
      tx.exec_params(
          "UPDATE nodes SET bmc_quiet_until = NULL WHERE id = $1::uuid OR parent_id = $1::uuid",
          *task.node_id);
    // A release's cleaning moves the node on (available, or clean_failed), and so does a
    // reprovision (deployed, or provision_failed).
    const bool moves_lifecycle = task.kind == TaskKind::clean || task.kind == TaskKind::reprovision;
    if (moves_lifecycle && task.node_id) {
      const bool ok = state == TaskState::succeeded;
      const std::string from = task.kind == TaskKind::clean ? "cleaning" : "provisioning";
      const std::string next = task.kind == TaskKind::clean
                                   ? (ok ? "available" : "clean_failed")
                                   : (ok ? "deployed" : "provision_failed");
      const auto moved = tx.exec_params(
          "UPDATE nodes SET lifecycle = $2, updated_at = now() "
          " WHERE id = $1::uuid AND lifecycle = $3",
          *task.node_id, next, from);
      if (moved.affected_rows() == 1)
        append_event(tx, {task.node_id,
                          task.node_name,
                          "lifecycle",
                          ok ? Severity::info : Severity::warning,
                          from + " -> " + next,
                          {{"from", from}, {"to", next}, {"task_id", task.id}}});
    }
    // The node's history and the audit trail say what was done to it, by whom and how it ended.
    append_event(
        tx, {task.node_id,
             task.node_name,
             "task",
             state == TaskState::failed ? Severity::warning : Severity::info,
             outcome_message(task, state, error),
             {{"task_id", task.id}, {"kind", to_string(task.kind)}, {"state", to_string(state)}}});
    AuditEntry entry;
    entry.actor = task.requested_by.value_or("ironhold");
    entry.action = "task." + std::string(to_string(task.kind));
    entry.target_type = "node";
    entry.target_id = task.node_id;
    entry.target_name = task.node_name;
    entry.project = task.project;
    entry.outcome = std::string(to_string(state));
    entry.details = {{"task_id", task.id},
                     {"parameters", task.parameters},
                     {"attempts", task.attempts},
                     {"error", error ? json(*error) : json(nullptr)},
                     {"in_doubt", [&] {
                        json notes = json::array();
                        for (const auto& s : steps)
                          if (s.in_doubt)
                            notes.push_back({{"step", s.name}, {"resolution", *s.in_doubt}});
                        return notes;
                      }()}};
    append_audit_entry(db_, tx, entry);
    return true;
  });
}

void TaskStore::release(const std::string& id, const std::string& owner,
                        std::span<const TaskStep> steps) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params(
        "UPDATE tasks SET steps = $3::jsonb, lease_owner = NULL, lease_expires = NULL, "
        "       updated_at = now() "
        " WHERE id = $1::uuid AND lease_owner = $2 AND state = 'running'",
        id, owner, db_json(steps_to_json(steps)));
  });
}

}  // namespace ironhold::db

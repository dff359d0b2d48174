#pragma once
// Tasks in PostgreSQL: the table is the queue. Creating a task (with its Idempotency-Key record)
// is one transaction; workers claim with FOR UPDATE SKIP LOCKED under an expiring lease that they
// renew while working, so a task whose worker died is taken up again by any instance once the
// lease runs out. A node's tasks run one at a time, oldest first: a task is claimable only when
// no older task of its node is still queued or running (the node lock is the queue order).
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/database.hpp"
#include "inventory/drivers/node_driver.hpp"
#include "inventory/model/access.hpp"
#include "inventory/model/node.hpp"
#include "inventory/model/node_query.hpp"
#include "inventory/model/task.hpp"

namespace ironhold::db {

struct NewTask {
  TaskKind kind = TaskKind::power;
  std::string node;  // id or name of a node in service
  TaskParameters parameters;
  std::string requested_by;
  bool automatic = false;  // refused for a node in maintenance
};

// POST /api/v1/actions: the same task on every node a selector matches.
struct NewBulk {
  NewTask task;             // its kind, parameters and requester (node is ignored)
  nlohmann::json selector;  // as the client gave it, kept for the record
  NodeFilter filter;        // parsed from it
  int max_parallel = 8;     // of the bulk's tasks running at once, across instances
};

// The client's Idempotency-Key, scoped to its token, with a hash of the request it came with.
struct IdempotencyKey {
  std::string token_id;
  std::string key;
  std::string request_hash;
};

struct CreatedTasks {
  std::vector<Task> tasks;
  std::optional<std::string> bulk_id;
  bool replayed = false;  // the key was seen before: these are the tasks it created then
};

struct TaskFilter {
  std::optional<std::string> node;  // id or name
  std::optional<TaskState> state;
  std::optional<TaskKind> kind;
  std::optional<std::string> bulk_id;
  int limit = 100;
  // Keyset position: the (created_at, id) of the last task of the previous page (newest first).
  std::optional<std::string> after_created_at, after_id;
  // The projects whose tasks the caller may read (set by the API, never from a cursor).
  ProjectScope scope;
};

struct TaskPage {
  std::vector<Task> items;
  bool more = false;  // another page follows the last item
};

// What a worker needs to carry a task out, read when it claims it.
struct TaskJob {
  Task task;
  nlohmann::json secrets = nlohmann::json::object();  // opened write-only parameters
  bool node_exists = false;
  bool node_retired = false;
  bool maintenance = false;
  Source source = Source::bmc;
  std::string driver;     // "redfish", "ipmi", "openstack", ...
  DriverTarget target;    // the BMC to talk to (a parent's, for a System behind it)
  std::string system_id;  // which System behind that BMC; empty: the first
  std::optional<std::string> provider_id, cloud_account_id;
  // What the engine's per-target limit counts: "bmc:<BMC node id>" or "cloud:<account id>".
  std::string limiter_key;
};

// What a worker learns when it renews its lease.
struct LeaseCheck {
  bool owned = false;  // false: the task is no longer this worker's (its lease expired and
                       // another took it over, or it ended); stop without writing.
  bool cancel_requested = false;
};

// Actions this service cannot carry out, with the reason (see TaskStore::refuse_...).
struct Refusals {
  std::optional<std::string> reprovisioning;  // of owned servers
};

class TaskStore {
 public:
  TaskStore(Database& db, const crypto::SecretBox& box) : db_(db), box_(box) {}

  // Why owned servers cannot be reprovisioned here (no URL installers could reach this service
  // at), given at start-up: their reprovision requests are then unprocessable, saying so.
  void refuse_owned_reprovisioning(std::string why) { refusals_.reprovisioning = std::move(why); }
  const Refusals& refusals() const { return refusals_; }

  // Creates the tasks in one transaction (all or none). With a key: a key seen before (within
  // 24 hours; db::run_maintenance removes older records) with the same request hash returns the
  // tasks it created then; with another hash it is unprocessable. Throws not_found for an unknown
  // node, conflict for a retired one or for an automatic task on a node in maintenance,
  // unprocessable for an action the node cannot take.
  CreatedTasks create(std::span<const NewTask> tasks, const std::optional<IdempotencyKey>& key);
  // One task per node the filter matches, under one bulk_id, in one transaction; the same
  // Idempotency-Key rules. Unprocessable when it matches more than 10,000 nodes or a node that
  // cannot take the action (naming it).
  CreatedTasks create_bulk(const NewBulk& bulk, const std::optional<IdempotencyKey>& key);
  // The nodes in service a filter matches (a dry run), by name; at most `cap`, else unprocessable.
  std::vector<Node> select_nodes(const NodeFilter& filter, int cap = 10000);

  Task get(const std::string& id);
  TaskPage list(const TaskFilter& filter);
  // A queued task is cancelled at once; a running one is asked to stop (the worker stops at its
  // next step boundary or wait and records what was already sent). Conflict for a task that
  // has ended.
  Task request_cancel(const std::string& id, const std::string& actor);

  // Leases up to `limit` claimable tasks, oldest first (and at most one per node).
  std::vector<TaskJob> claim(const std::string& owner, int limit, std::chrono::seconds lease);
  LeaseCheck renew(const std::string& id, const std::string& owner, std::chrono::seconds lease);
  // Writes the steps while the lease is held; false when it is not (stop working).
  bool save_steps(const std::string& id, const std::string& owner, std::span<const TaskStep> steps);
  // Ends the task (succeeded, failed or cancelled), wipes its secrets, and records an event on
  // the node and an audit entry, all in one transaction. False when the lease was lost.
  bool finish(const std::string& id, const std::string& owner, TaskState state,
              const nlohmann::json& result, const std::optional<std::string>& error,
              std::span<const TaskStep> steps);
  // A credentials task's new password, verified at the BMC: stored as the node's password (its
  // username kept) while the lease is held, with an event on the node and an audit entry, in one
  // transaction. False when the lease was lost (nothing is written).
  bool store_rotated_password(const std::string& id, const std::string& owner,
                              const std::string& node_id, const std::string& new_password);
  // A credentials task's hold on its node's BMC (migration 0032), set or renewed for `hold`: no
  // new poll or task is claimed for the node or the Systems behind its BMC meanwhile. The number
  // of polls and tasks claimed there before and still running (the rotation waits for them to
  // end); std::nullopt when the lease was lost. finish() lets go of the hold.
  std::optional<int> hold_bmc(const std::string& id, const std::string& owner,
                              const std::string& node_id, std::chrono::seconds hold);
  // The projects' rotation policies: an automatic credentials task for up to `limit` owned servers
  // whose stored BMC password is older than their project's bmc_password_max_age_days, that have
  // no rotation under way and no automatic one in the last day (a BMC that refuses is not asked
  // again every scan). A node a rotation cannot be made for is skipped and logged. The ids made.
  std::vector<std::string> create_due_rotations(int limit);
  // Gives the task back unfinished (this instance is stopping): its lease ends now, so the next
  // worker to claim it resumes it from its steps.
  void release(const std::string& id, const std::string& owner, std::span<const TaskStep> steps);

 private:
  Database& db_;
  const crypto::SecretBox& box_;
  Refusals refusals_;
};

}  // namespace ironhold::db

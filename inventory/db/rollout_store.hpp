#pragma once
// Firmware rollouts in PostgreSQL (migration 0008). A rollout is created with its nodes in order
// (canary first) and starts nothing itself: advance() moves every active rollout on, each in a
// transaction that locks its row (SKIP LOCKED), so that several instances share the work, and a
// node's firmware task is created in the same transaction that records it, so that a kill -9
// never leaves a node updated twice or a task unrecorded.
#include <chrono>
#include <string>
#include <vector>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/database.hpp"
#include "inventory/db/task_store.hpp"
#include "inventory/model/access.hpp"
#include "inventory/model/rollout.hpp"

namespace ironhold::db {

// What one advance() did, for the runner (wake the task engine) and for logs.
struct RolloutAdvance {
  int tasks_created = 0;
  int nodes_finished = 0;  // nodes that reached succeeded, failed, skipped or cancelled
  int rollouts_ended = 0;  // rollouts that succeeded, halted, or finished aborting
};

class RolloutStore {
 public:
  // `tasks` supplies what firmware tasks are refused here (no --advertise-url).
  RolloutStore(Database& db, const crypto::SecretBox& box, const TaskStore& tasks)
      : db_(db), box_(box), tasks_(tasks) {}

  // The rollout of `spec`'s image to every node in service its selector matches, in name order,
  // the first `canary` nodes as batch 0. Unprocessable when nothing matches, more than 10,000
  // nodes do, the image is not ready, firmware cannot be updated here, or a node cannot take the
  // update (a cloud instance, an IPMI server, another model than the image's), naming them.
  // With an Idempotency-Key, the same request again (within 24 hours) returns the rollout it
  // created then (`replayed`), and another request under the key is unprocessable.
  struct Created {
    Rollout rollout;
    bool replayed = false;
  };
  Created create(const RolloutSpec& spec, const std::string& requested_by,
                 const std::optional<IdempotencyKey>& key = std::nullopt);
  Rollout get(const std::string& id);  // with its nodes; not_found
  std::vector<Rollout> list(
      int limit,
      const ProjectScope& scope = std::nullopt);  // newest first, with their nodes (for the counts)

  // running → paused (no node is started; those under way go on).
  Rollout pause(const std::string& id, const std::string& actor);
  // paused or halted → running; the failures so far count as accepted (max_failures counts the
  // ones after them).
  Rollout resume(const std::string& id, const std::string& actor);
  // running, paused or halted → aborted: pending nodes are cancelled, queued tasks too; updates
  // already running end as they end. Conflict for a rollout that has ended.
  Rollout abort(const std::string& id, const std::string& actor);

  // One step of every rollout not yet finished: records ended tasks and health gates, halts or
  // finishes rollouts, and starts the next nodes of running ones.
  RolloutAdvance advance();

 private:
  Database& db_;
  const crypto::SecretBox& box_;
  const TaskStore& tasks_;
};

}  // namespace ironhold::db

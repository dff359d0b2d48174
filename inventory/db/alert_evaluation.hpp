#pragma once
// Turns what the inventory says into alerts (migration 0016): one pass compares the problems that
// exist now (a node's health, a BMC unreachable for three polls, refused credentials, a swapped
// certificate, a sensor over a threshold, a cloud account failing its syncs, a halted rollout)
// with the open alerts, fires what is new, resolves what is gone, and turns new hardware log
// entries and failed tasks into alerts of their own. Every change someone should hear about
// leaves a row per matching receiver in the outbox, in the same transaction, unless the node is
// in maintenance, a silence covers it, or the alert is flapping.
//
// One instance evaluates at a time (a transaction-scoped advisory lock); the others skip the pass.
#include <chrono>

#include "inventory/db/database.hpp"

namespace ironhold::db {

struct AlertPolicy {
  // An alert that fires again within this long of resolving counts as a flap; three flaps make it
  // flapping (not notified) until it has stayed put this long.
  std::chrono::seconds flap_window{15 * 60};
  int flaps_to_damp = 3;
  // Consecutive failed status polls before an unreachable BMC is an alert.
  int unreachable_after = 3;
  // Cloud account syncs failed in a row before the account is an alert.
  int cloud_failures = 3;
  // One-shot alerts (a hardware log entry, a failed task) resolve this long after last seen.
  std::chrono::seconds one_shot_ttl{24 * 3600};
};

struct AlertPass {
  bool ran = false;  // false: another instance held the lock
  int fired = 0, resolved = 0, updated = 0, notifications = 0;
};

AlertPass evaluate_alerts(Database& db, const AlertPolicy& policy = {});

}  // namespace ironhold::db

#pragma once
// POST /nodes/{id}/lifecycle: an operator's lifecycle action, checked against the transition table
// (inventory/model/lifecycle.hpp) and carried out in one transaction with the node row locked, so
// two requests cannot both move a node out of the same state.
#include <optional>
#include <string>
#include <string_view>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/database.hpp"
#include "inventory/db/node_store.hpp"
#include "inventory/model/lifecycle.hpp"
#include "inventory/model/task.hpp"

namespace ironhold::db {

struct LifecycleOutcome {
  Lifecycle from = Lifecycle::enrolled;
  Node node;                 // as it is now
  std::optional<Task> task;  // the clean task a release or retry started
};

class LifecycleStore {
 public:
  LifecycleStore(Database& db, const crypto::SecretBox& box, NodeStore& nodes)
      : db_(db), box_(box), nodes_(nodes) {}

  // Throws not_found for an unknown node, conflict (409) for an action the node's state does not
  // allow (naming the state and the allowed actions), unprocessable for a cloud instance (its
  // lifecycle follows its provider) and for inspecting a System read through its parent's BMC.
  LifecycleOutcome apply(std::string_view node, LifecycleAction action, const std::string& actor);

 private:
  Database& db_;
  const crypto::SecretBox& box_;
  NodeStore& nodes_;
};

}  // namespace ironhold::db

#pragma once
// Internal to inventory/db/: one task created inside a caller's transaction (a rollout's, which
// records the task's id with it), with every check TaskStore::create makes; and the claim of an
// Idempotency-Key, for every store that creates what a retried request must not create twice.
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "inventory/db/task_store.hpp"

namespace ironhold::db {

// Returns the new task's id; throws like TaskStore::create (not_found, conflict, unprocessable).
std::string create_task_in(pqxx::work& tx, const crypto::SecretBox& box, const Refusals& refusals,
                           const NewTask& task);

// The nodes in service a filter selects, by name; unprocessable when more than `cap` do.
std::vector<Node> matching_nodes(pqxx::work& tx, const NodeFilter& filter, int cap);

// True on the key's first use (its record is written now, for the caller to fill in); false for a
// repeat of the same request within 24 hours; unprocessable for another request under the key.
bool claim_idempotency_key(pqxx::work& tx, const IdempotencyKey& key);

}  // namespace ironhold::db

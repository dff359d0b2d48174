#pragma once
// Internal to inventory/db/: one task created inside a caller's transaction (a rollout's, which
// records the task's id with it), with every check TaskStore::create makes.
#include <pqxx/pqxx>
#include <string>

#include "inventory/db/task_store.hpp"

namespace ironhold::db {

// Returns the new task's id; throws like TaskStore::create (not_found, conflict, unprocessable).
std::string create_task_in(pqxx::work& tx, const crypto::SecretBox& box, const Refusals& refusals,
                           const NewTask& task);

}  // namespace ironhold::db

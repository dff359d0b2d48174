#pragma once
// Internal to inventory/db/: rollouts and their nodes read from their rows.
#include <optional>
#include <pqxx/pqxx>
#include <string>

#include "inventory/db/database.hpp"
#include "inventory/model/rollout.hpp"

namespace ironhold::db {

// The rollout with its nodes in order; nothing when there is none. `lock`: FOR UPDATE (waits for
// an advance under way).
std::optional<Rollout> read_rollout(pqxx::work& tx, const std::string& id, bool lock);
// The nodes of a rollout, in order.
std::vector<RolloutNode> read_rollout_nodes(pqxx::work& tx, const std::string& id);
// An audit entry about the rollout (its action "rollout.pause", ...), in the caller's transaction.
void audit_rollout(Database& db, pqxx::work& tx, const Rollout& rollout, const std::string& actor,
                   const std::string& action, nlohmann::json details = nlohmann::json::object());
// The rollout's columns, for SELECTs that build a Rollout with rollout_from_row.
extern const char* const rollout_columns;
Rollout rollout_from_row(const pqxx::row& r);

}  // namespace ironhold::db

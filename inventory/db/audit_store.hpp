#pragma once
// The audit trail: one row per mutating request or server-side command, written whatever the
// outcome. Rows keep the target's id and name as values so that purging a node never breaks them.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/db/database.hpp"

namespace ironhold::db {

struct AuditEntry {
  std::string actor;     // token name, or "cli:<user>"
  std::optional<std::string> actor_id;
  std::string action;    // "POST /api/v1/nodes", "token.create"
  std::optional<std::string> target_type, target_id, target_name;
  std::string outcome;   // HTTP status, or "ok" / "error"
  std::optional<std::string> request_id;
  nlohmann::json details = nlohmann::json::object();
};

struct AuditRecord {
  long long id = 0;
  std::string at;
  AuditEntry entry;
};

class AuditStore {
 public:
  explicit AuditStore(Database& db) : db_(db) {}
  void record(const AuditEntry& entry);
  // Newest first; for a target id when given; only entries older than `before_id` when given.
  std::vector<AuditRecord> recent(int limit, const std::optional<std::string>& target_id = std::nullopt,
                                  std::optional<long long> before_id = std::nullopt);

 private:
  Database& db_;
};

nlohmann::json to_json(const AuditRecord& record);

}  // namespace ironhold::db

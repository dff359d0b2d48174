#include "inventory/db/audit_store.hpp"

#include "inventory/db/audit_append.hpp"
#include "inventory/db/node_rows.hpp"
#include "inventory/db/transaction.hpp"

namespace ironhold::db {

void append_audit_entry(pqxx::work& tx, const AuditEntry& e) {
  tx.exec_params(
      "INSERT INTO audit_log (actor, actor_id, action, target_type, target_id, target_name, "
      "outcome, request_id, details) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)",
      e.actor, nullable(e.actor_id), e.action, nullable(e.target_type), nullable(e.target_id),
      nullable(e.target_name), e.outcome, nullable(e.request_id),
      e.details.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void AuditStore::record(const AuditEntry& e) {
  transact(db_, [&](pqxx::work& tx) { append_audit_entry(tx, e); });
}

std::vector<AuditRecord> AuditStore::recent(int limit, const std::optional<std::string>& target_id,
                                            std::optional<long long> before_id) {
  return transact(db_, [&](pqxx::work& tx) {
    auto rows = tx.exec_params(
        "SELECT id, rfc3339(at), actor, actor_id, action, target_type, target_id, target_name, "
        "outcome, request_id, details::text FROM audit_log WHERE ($1::text IS NULL OR target_id = "
        "$1) "
        "AND ($3::bigint IS NULL OR id < $3::bigint) ORDER BY id DESC LIMIT $2::integer",
        nullable(target_id), std::to_string(limit),
        nullable(before_id ? std::optional<std::string>(std::to_string(*before_id))
                           : std::nullopt));
    std::vector<AuditRecord> out;
    for (const auto& r : rows) {
      AuditRecord rec;
      rec.id = r[0].as<long long>();
      rec.at = r[1].as<std::string>();
      rec.entry.actor = r[2].as<std::string>();
      rec.entry.actor_id = optional_text(r[3]);
      rec.entry.action = r[4].as<std::string>();
      rec.entry.target_type = optional_text(r[5]);
      rec.entry.target_id = optional_text(r[6]);
      rec.entry.target_name = optional_text(r[7]);
      rec.entry.outcome = r[8].as<std::string>();
      rec.entry.request_id = optional_text(r[9]);
      rec.entry.details = nlohmann::json::parse(r[10].c_str(), nullptr, false);
      out.push_back(std::move(rec));
    }
    return out;
  });
}

nlohmann::json to_json(const AuditRecord& r) {
  const auto& e = r.entry;
  return {{"id", r.id},
          {"at", r.at},
          {"actor", e.actor},
          {"actor_id", json_or_null(e.actor_id)},
          {"action", e.action},
          {"target_type", json_or_null(e.target_type)},
          {"target_id", json_or_null(e.target_id)},
          {"target_name", json_or_null(e.target_name)},
          {"outcome", e.outcome},
          {"request_id", json_or_null(e.request_id)},
          {"details", e.details}};
}

}  // namespace ironhold::db

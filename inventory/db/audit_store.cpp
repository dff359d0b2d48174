#include "inventory/db/audit_store.hpp"

#include "inventory/db/audit_append.hpp"
#include "inventory/db/node_rows.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/transaction.hpp"

namespace ironhold::db {

ChainHead AuditStore::record(const AuditEntry& e) {
  return transact(db_, [&](pqxx::work& tx) { return append_audit_entry(db_, tx, e); });
}

ChainHead AuditStore::head() {
  return transact(db_, [&](pqxx::work& tx) {
    const auto r = tx.exec1(
        "SELECT head_seq, coalesce(encode(head_mac, 'hex'), ''), rfc3339(now()) FROM audit_chain");
    return ChainHead{r[0].as<long long>(), r[1].as<std::string>(), r[2].as<std::string>()};
  });
}

std::vector<AuditRecord> AuditStore::list(const AuditFilter& f, int limit) {
  std::optional<std::string> action_exact, action_prefix;
  if (f.action && !f.action->empty() && f.action->back() == '*')
    action_prefix = f.action->substr(0, f.action->size() - 1);
  else
    action_exact = f.action;
  const auto before =
      f.before_id ? std::optional<std::string>(std::to_string(*f.before_id)) : std::nullopt;
  return transact(db_, [&](pqxx::work& tx) {
    // A prefix is matched with starts_with, never LIKE: '%' and '_' in it are plain characters.
    const auto rows =
        tx.exec_params(std::string("SELECT id, seq, ") + sealed_columns +
                           " FROM audit_log WHERE ($1::text IS NULL OR actor = $1) "
                           "AND ($2::text IS NULL OR target_id = $2) "
                           "AND ($3::text IS NULL OR action = $3) "
                           "AND ($4::text IS NULL OR starts_with(action, $4)) "
                           "AND ($5::timestamptz IS NULL OR at >= $5::timestamptz) "
                           "AND ($6::timestamptz IS NULL OR at < $6::timestamptz) "
                           "AND ($7::bigint IS NULL OR id < $7::bigint) "
                           "AND ($9::text[] IS NULL OR project = ANY($9::text[])) "
                           "ORDER BY id DESC LIMIT $8::integer",
                       nullable(f.actor), nullable(f.target), nullable(action_exact),
                       nullable(action_prefix), nullable(f.since), nullable(f.until),
                       nullable(before), std::to_string(limit), nullable(scope_array(f.scope)));
    std::vector<AuditRecord> out;
    out.reserve(rows.size());
    for (const auto& r : rows) {
      AuditRecord rec;
      rec.id = r[0].as<long long>();
      if (!r[1].is_null()) rec.seq = r[1].as<long long>();
      const audit::SealedContent c = content_from(r, 2);
      rec.at = c.at;
      rec.entry = AuditEntry{c.actor,     c.actor_id,
                             c.action,    c.target_type,
                             c.target_id, c.target_name,
                             c.outcome,   c.request_id,
                             c.project,   nlohmann::json::parse(c.details, nullptr, false)};
      out.push_back(std::move(rec));
    }
    return out;
  });
}

nlohmann::json to_json(const AuditRecord& r) {
  const auto& e = r.entry;
  return {{"id", r.id},
          {"seq", r.seq ? nlohmann::json(*r.seq) : nlohmann::json(nullptr)},
          {"at", r.at},
          {"actor", e.actor},
          {"actor_id", json_or_null(e.actor_id)},
          {"action", e.action},
          {"target_type", json_or_null(e.target_type)},
          {"target_id", json_or_null(e.target_id)},
          {"target_name", json_or_null(e.target_name)},
          {"outcome", e.outcome},
          {"request_id", json_or_null(e.request_id)},
          {"project", json_or_null(e.project)},
          {"details", e.details}};
}

nlohmann::json to_json(const ChainHead& head) {
  return {{"seq", head.seq}, {"mac", head.mac_hex}, {"at", head.at}};
}

nlohmann::json to_json(const ChainReport& report) {
  nlohmann::json problem = nullptr;
  if (report.problem) {
    const auto& p = *report.problem;
    problem = {{"kind", p.kind},
               {"seq", p.seq ? nlohmann::json(*p.seq) : nlohmann::json(nullptr)},
               {"id", p.id ? nlohmann::json(*p.id) : nlohmann::json(nullptr)},
               {"message", p.message}};
  }
  nlohmann::json anchor = nullptr;
  if (report.anchor)
    anchor = {
        {"seq", report.anchor->seq}, {"mac", report.anchor->mac_hex}, {"at", report.anchor->at}};
  return {{"ok", report.ok()},
          {"entries", report.entries},
          {"unsealed_legacy", report.unsealed_legacy},
          {"head", to_json(report.head)},
          {"anchor", anchor},
          {"problem", problem}};
}

}  // namespace ironhold::db

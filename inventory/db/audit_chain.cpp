// Appending to the audit chain: lock the head, seal the entry over the head's MAC, insert it and
// move the head, all in the caller's transaction.
#include "inventory/audit/seal.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/db/audit_append.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::db {
namespace {

const crypto::Key& audit_key_of(Database& db) {
  const auto& key = db.options().audit_key;
  if (!key)
    throw Error(ErrorKind::internal,
                "this process has no audit key, so it cannot write audit entries");
  return *key;
}

std::string hex(const audit::Mac& mac) {
  return crypto::to_hex(mac);
}

struct LockedHead {
  long long seq = 0;
  std::string mac_hex;
  std::string at;       // clock_timestamp() at the lock: the entry's time
  std::string details;  // the entry's details as the database writes them
};

// Entries written before the chain existed join it, in id order, ahead of the first new one.
void seal_legacy_entries(pqxx::work& tx, const crypto::Key& key, LockedHead& head) {
  const auto rows = tx.exec(util::concat("SELECT id, ", sealed_columns,
                                         " FROM audit_log WHERE mac IS NULL AND id <= (SELECT "
                                         "legacy_through FROM audit_chain) ORDER BY id"));
  for (const auto& row : rows) {
    const audit::SealedContent content = content_from(row, 1);
    std::vector<std::uint8_t> previous;
    crypto::from_hex(head.mac_hex, previous);
    const audit::Mac mac = audit::seal(
        key, content,
        std::string_view(reinterpret_cast<const char*>(previous.data()), previous.size()));
    ++head.seq;
    head.mac_hex = hex(mac);
    tx.exec_params0(
        "UPDATE audit_log SET seq = $2, prev_mac = decode($3, 'hex'), mac = decode($4, 'hex') "
        "WHERE id = $1",
        row[0].as<long long>(), head.seq, crypto::to_hex(previous), head.mac_hex);
  }
  tx.exec_params0(
      "UPDATE audit_chain SET head_seq = $1, head_mac = decode($2, 'hex'), legacy_sealed = true",
      head.seq, head.mac_hex);
}

LockedHead lock_head(pqxx::work& tx, const crypto::Key& key, const std::string& details) {
  const auto rows = tx.exec_params(
      "SELECT head_seq, coalesce(encode(head_mac, 'hex'), ''), encode(key_check, 'hex'), "
      "legacy_sealed, rfc3339(clock_timestamp()), $1::jsonb::text FROM audit_chain FOR UPDATE",
      details);
  if (rows.empty())
    throw Error(ErrorKind::internal, "the audit chain has no head row: is the database migrated?");
  const auto& r = rows[0];
  LockedHead head{r[0].as<long long>(), r[1].as<std::string>(), r[4].as<std::string>(),
                  r[5].as<std::string>()};
  const std::string ours = hex(audit::key_check(key));
  if (r[2].is_null()) {
    tx.exec_params0("UPDATE audit_chain SET key_check = decode($1, 'hex')", ours);
  } else if (r[2].as<std::string>() != ours) {
    throw Error(ErrorKind::unavailable,
                "the audit trail in this database is sealed under another audit key; start every "
                "instance with the same audit key file (--audit-key-file, by default audit.key "
                "beside the master key)");
  }
  if (!r[3].as<bool>()) seal_legacy_entries(tx, key, head);
  return head;
}

}  // namespace

audit::SealedContent content_from(const pqxx::row& row, int first) {
  audit::SealedContent c;
  c.at = row[first].as<std::string>();
  c.actor = row[first + 1].as<std::string>();
  c.actor_id = optional_text(row[first + 2]);
  c.action = row[first + 3].as<std::string>();
  c.target_type = optional_text(row[first + 4]);
  c.target_id = optional_text(row[first + 5]);
  c.target_name = optional_text(row[first + 6]);
  c.outcome = row[first + 7].as<std::string>();
  c.request_id = optional_text(row[first + 8]);
  c.project = optional_text(row[first + 9]);
  c.details = row[first + 10].as<std::string>();
  return c;
}

ChainHead append_audit_entry(Database& db, pqxx::work& tx, const AuditEntry& e) {
  const crypto::Key& key = audit_key_of(db);
  LockedHead head =
      lock_head(tx, key, e.details.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  audit::SealedContent content{head.at,       e.actor,     e.actor_id,    e.action,
                               e.target_type, e.target_id, e.target_name, e.outcome,
                               e.request_id,  e.project,   head.details};
  std::vector<std::uint8_t> previous;
  crypto::from_hex(head.mac_hex, previous);
  const audit::Mac mac = audit::seal(
      key, content,
      std::string_view(reinterpret_cast<const char*>(previous.data()), previous.size()));
  const long long seq = head.seq + 1;
  const std::string mac_hex = hex(mac);
  tx.exec_params0(
      "WITH entry AS ("
      "  INSERT INTO audit_log (seq, at, actor, actor_id, action, target_type, target_id, "
      "    target_name, outcome, request_id, project, details, prev_mac, mac) "
      "  VALUES ($1, $2::timestamptz, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, "
      "    decode($13, 'hex'), decode($14, 'hex')) RETURNING seq) "
      "UPDATE audit_chain SET head_seq = (SELECT seq FROM entry), head_mac = decode($14, 'hex')",
      seq, content.at, content.actor, nullable(content.actor_id), content.action,
      nullable(content.target_type), nullable(content.target_id), nullable(content.target_name),
      content.outcome, nullable(content.request_id), nullable(content.project), content.details,
      head.mac_hex, mac_hex);
  return ChainHead{seq, mac_hex, content.at};
}

}  // namespace ironhold::db

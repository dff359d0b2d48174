#pragma once
// The audit trail: one row per mutating request, sign-in, task step or server-side command,
// written whatever the outcome, sealed into a chain (see inventory/audit/seal.hpp) that
// verify_audit_chain() walks. Rows keep the target's id and name as values so that purging a node
// never breaks them.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/audit/anchor_file.hpp"
#include "inventory/db/database.hpp"
#include "inventory/model/access.hpp"

namespace ironhold::db {

struct AuditEntry {
  std::string actor;  // token or user name, or "cli:<user>"
  std::optional<std::string> actor_id;
  std::string action;  // "POST /api/v1/nodes", "token.create"
  std::optional<std::string> target_type, target_id, target_name;
  std::string outcome;  // HTTP status, or "ok" / "error"
  std::optional<std::string> request_id;
  std::optional<std::string> project;  // the project of the target, when it has one
  nlohmann::json details = nlohmann::json::object();
};

struct AuditRecord {
  long long id = 0;
  std::optional<long long> seq;  // the place in the chain
  std::string at;
  AuditEntry entry;
};

// Where the chain ends: the last entry's place and MAC.
struct ChainHead {
  long long seq = 0;
  std::string mac_hex;
  std::string at;
};

// Which entries a listing or an export selects. Times are RFC 3339.
struct AuditFilter {
  std::optional<std::string> actor;
  std::optional<std::string> target;   // a target id
  std::optional<std::string> action;   // exact, or a prefix when it ends in '*'
  std::optional<std::string> since;    // at >= since
  std::optional<std::string> until;    // at < until
  std::optional<long long> before_id;  // keyset paging: entries older than this id
  // The projects whose entries the caller may read (set by the API, never from a cursor);
  // nullopt: every entry, those of no project included.
  ProjectScope scope;
};

class AuditStore {
 public:
  explicit AuditStore(Database& db) : db_(db) {}
  ChainHead record(const AuditEntry& entry);
  // Newest first, at most `limit`.
  std::vector<AuditRecord> list(const AuditFilter& filter, int limit);
  // The chain's head now; seq 0 before the first entry.
  ChainHead head();

 private:
  Database& db_;
};

struct ChainProblem {
  std::string kind;  // "modified", "deleted", "inserted", "reordered", "wrong_key"
  std::optional<long long> seq;
  std::optional<long long> id;
  std::string message;
};

struct ChainReport {
  long long entries = 0;                // entries verified
  long long unsealed_legacy = 0;        // entries from before the chain, not sealed yet
  ChainHead head;                       // as the database records it
  std::optional<audit::Anchor> anchor;  // the newest head anchored outside the database
  std::optional<ChainProblem> problem;  // the first one found
  bool ok() const { return !problem.has_value(); }
};

// Walks the whole chain in order and reports the first entry that was modified, deleted,
// inserted or reordered since it was written; also checks the chain reaches the head recorded in
// the database and the newest head anchored in `anchor` (when given).
ChainReport verify_audit_chain(Database& db, const audit::AnchorFile* anchor);

nlohmann::json to_json(const AuditRecord& record);
nlohmann::json to_json(const ChainHead& head);
nlohmann::json to_json(const ChainReport& report);

}  // namespace ironhold::db

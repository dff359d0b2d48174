#pragma once
// The rows of the change stream (migrations/0010_change_stream.sql) and the queries that read them
// through the pool: where an event id sits in delivery order, the changes between two positions,
// and the watermark below which every change is final.
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inventory/db/database.hpp"

namespace ironhold::db {

// Where a change sits in delivery order: its transaction's id first, then its own id. Ids alone
// are not in commit order; this is (see the migration).
struct ChangePosition {
  std::uint64_t xid = 0;
  std::int64_t id = 0;
  auto operator<=>(const ChangePosition&) const = default;
};

// The first position after `p`: everything before it includes `p` itself.
inline ChangePosition just_after(ChangePosition p) {
  return {p.xid, p.id + 1};
}

struct ChangeRow {
  ChangePosition position;  // position.id is the event's id on the stream
  std::string kind;         // "node.updated", "node.deleted", "task.updated", ...
  std::string resource_id;
  // The project the change belongs to (its resource's, then); none: only those who may see
  // every project receive it.
  std::optional<std::string> project;
};

class ChangeStore {
 public:
  explicit ChangeStore(Database& db) : db_(db) {}

  // The position of change `id`; nullopt when no such change is kept (pruned, or never was).
  std::optional<ChangePosition> position_of(std::int64_t id);
  // The changes after `after` and before `before`, in delivery order, at most `limit` of them.
  std::vector<ChangeRow> between(ChangePosition after, ChangePosition before, int limit);
  // The last change before `before`: what a client that has everything before it resumes after.
  std::optional<ChangeRow> last_before(ChangePosition before);
  // Every transaction with an xid below this one has ended: the changes below it are final.
  std::uint64_t watermark();

 private:
  Database& db_;
};

}  // namespace ironhold::db

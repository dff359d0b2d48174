#pragma once
// GPU capacity from the node history (node_versions): the SQL behind GET /api/v1/capacity and the
// GPU-hours the cost report prices. See inventory/model/capacity.hpp for what counts.
#include "inventory/db/database.hpp"
#include "inventory/model/access.hpp"
#include "inventory/model/capacity.hpp"

namespace ironhold::db {

class CapacityStore {
 public:
  explicit CapacityStore(Database& db) : db_(db) {}

  // The report of the nodes of `scope`'s projects (as each version recorded its project).
  CapacityReport report(const CapacityQuery& query, const ProjectScope& scope);

 private:
  Database& db_;
};

// Internal to inventory/db/: the SQL expression of a dimension over node_versions `nv`.
const char* capacity_dimension_sql(CapacityDimension d);
// Internal to inventory/db/: the node versions that count as GPU capacity in [$1, $2), clipped to
// it as s and e, with gpus and their state; $3 the project scope (text[] or null).
const char* capacity_versions_sql();

}  // namespace ironhold::db

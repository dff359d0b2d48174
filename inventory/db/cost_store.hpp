#pragma once
// The cost report's inputs from PostgreSQL: the node versions that were GPU capacity in the
// period, the energy measured per hour, and the prices, all read in one snapshot, then priced by
// compute_cost (inventory/model/cost.hpp).
#include "inventory/db/database.hpp"
#include "inventory/model/access.hpp"
#include "inventory/model/cost.hpp"

namespace ironhold::db {

class CostStore {
 public:
  explicit CostStore(Database& db) : db_(db) {}

  CostReport report(const CostQuery& query, const ProjectScope& scope);

 private:
  Database& db_;
};

}  // namespace ironhold::db

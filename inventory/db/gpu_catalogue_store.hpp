#pragma once
// The GPU catalogue in PostgreSQL (migration 0024): canonical models and their aliases, edited by
// admins. Every change re-resolves the hardware summary of the nodes in service in the same
// transaction, so gpu_model never names a model that was renamed or removed.
#include <string>
#include <vector>

#include "inventory/db/database.hpp"
#include "inventory/model/access.hpp"
#include "inventory/model/gpu_catalogue.hpp"

namespace ironhold::db {

struct GpuCatalogueChange {
  GpuModel model;                // as it is after the change (without counts for a removal)
  bool created = false;          // PUT made a new model
  long long nodes_remapped = 0;  // nodes whose gpu_model changed
};

class GpuCatalogueStore {
 public:
  explicit GpuCatalogueStore(Database& db) : db_(db) {}

  // Every model with its aliases and the nodes (of `scope`) that resolve to it.
  std::vector<GpuModel> list(const ProjectScope& scope = std::nullopt);
  GpuModel get(const std::string& name, const ProjectScope& scope = std::nullopt);  // not_found
  // Creates or replaces `path_name`; a different spec.name renames it (not_found when
  // `path_name` does not exist, conflict when the new name does). An alias another model holds
  // is a conflict naming that model.
  GpuCatalogueChange put(const std::string& path_name, const GpuModelSpec& spec,
                         const std::string& actor);
  GpuCatalogueChange remove(const std::string& name);  // its aliases go with it; not_found
  GpuCatalogueChange add_alias(const std::string& name, const GpuAlias& alias,
                               const std::string& actor);  // idempotent; conflict elsewhere
  GpuCatalogueChange remove_alias(const std::string& name, const GpuAlias& alias);  // not_found
  // Strings seen on nodes in service (hardware summary or a current GPU component) that resolve
  // to no model, most nodes first.
  std::vector<UnmappedGpu> unmapped();

 private:
  Database& db_;
};

}  // namespace ironhold::db

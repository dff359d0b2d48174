#pragma once
// Firmware baselines per server model in PostgreSQL (migration 0008), and the compliance of the
// nodes against them: every node in service whose model has a baseline, each component whose
// current version (its open firmware record) differs from the baseline or is missing.
#include <map>
#include <string>
#include <vector>

#include "inventory/db/database.hpp"
#include "inventory/model/access.hpp"
#include "inventory/model/firmware_baseline.hpp"

namespace ironhold::db {

class BaselineStore {
 public:
  explicit BaselineStore(Database& db) : db_(db) {}

  // Sets (replaces) the model's baseline.
  FirmwareBaseline put(const std::string& model,
                       const std::map<std::string, std::string>& components,
                       const std::string& actor);
  std::vector<FirmwareBaseline> list();
  FirmwareBaseline get(const std::string& model);  // not_found
  void remove(const std::string& model);           // not_found
  ComplianceReport compliance(const ProjectScope& scope = std::nullopt);

 private:
  Database& db_;
};

}  // namespace ironhold::db

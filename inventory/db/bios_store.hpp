#pragma once
// BIOS settings as the inspections recorded them (migration 0030): a node's current settings or
// those it had at any time, the versions with what changed between them; the per-model BIOS
// baselines and the fleet's drift from them.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/db/database.hpp"
#include "inventory/model/access.hpp"
#include "inventory/model/bios.hpp"

namespace ironhold::db {

class BiosStore {
 public:
  explicit BiosStore(Database& db) : db_(db) {}

  // {registry, attributes, boot_order, apply_times, settable, since, until}: the version current
  // at `as_of` (RFC 3339; now when absent); nullopt when none was (never read, or not yet).
  std::optional<nlohmann::json> settings(const std::string& node_id,
                                         const std::optional<std::string>& as_of = std::nullopt);
  // Every version, newest first: {since, until, registry, changes: [{attribute, from, to}],
  // boot_order}; the oldest has changes null (it is where the history starts).
  nlohmann::json history(const std::string& node_id);

  BiosBaseline put_baseline(const std::string& model, const nlohmann::json& attributes,
                            const std::string& actor);
  std::vector<BiosBaseline> baselines();
  BiosBaseline baseline(const std::string& model);  // not_found
  void remove_baseline(const std::string& model);   // not_found
  BiosDriftReport drift(const ProjectScope& scope = std::nullopt);

 private:
  Database& db_;
};

}  // namespace ironhold::db

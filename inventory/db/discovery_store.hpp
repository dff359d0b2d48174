#pragma once
// Network discovery runs and their results in PostgreSQL (migrations/0003_discovery.sql). The
// instance running a run holds a lease on it and renews it; a run whose lease ran out was
// interrupted and is marked failed by the next reader, or when an instance starts.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "inventory/db/database.hpp"
#include "inventory/discovery/discovery_run.hpp"
#include "inventory/model/access.hpp"

namespace ironhold::db {

struct NewDiscoveryRun {
  nlohmann::json parameters;
  int address_count = 0;
  std::string requested_by;
  std::string project = "default";
  std::optional<std::string> requested_by_id, request_id;
  std::string lease_owner;
  std::chrono::seconds lease{60};
};

class DiscoveryStore {
 public:
  explicit DiscoveryStore(Database& db) : db_(db) {}

  discovery::DiscoveryRun create(const NewDiscoveryRun& run);
  void mark_running(const std::string& id);
  // Appends results and sets the counts.
  void record(const std::string& id, const discovery::DiscoveryCounts& counts,
              const std::vector<discovery::DiscoveryResult>& results);
  // Ends a queued or running run: "succeeded", or "failed" with why.
  void finish(const std::string& id, const std::string& state,
              const std::optional<std::string>& error);

  // With its results. Throws not_found for an unknown (or non-UUID) id.
  discovery::DiscoveryRun get(const std::string& id);
  // Newest first, without results.
  // The newest runs of the projects in `scope` (nullopt: every project).
  std::vector<discovery::DiscoveryRun> recent(int limit, const ProjectScope& scope = std::nullopt);

  // Extends the lease of every open run of `owner`.
  void renew_leases(const std::string& owner, std::chrono::seconds lease);
  // Marks failed every open run whose lease ran out; returns how many.
  int fail_abandoned(const std::string& reason);
  // Marks failed every open run of `owner` (it is stopping); returns how many.
  int fail_owned(const std::string& owner, const std::string& reason);

 private:
  Database& db_;
};

nlohmann::json to_json(const discovery::DiscoveryRun& run);

}  // namespace ironhold::db

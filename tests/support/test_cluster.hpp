#pragma once
// The test run's shared PostgreSQL cluster and the helpers around it.
#include <filesystem>
#include <string>
#include <string_view>

#include "inventory/db/embedded_cluster.hpp"

namespace ironhold::test {

// Every test database is a copy of this one.
inline constexpr const char* template_database = "ironhold_template";

// Drops and re-creates the template database with the bundled migrations applied as the owner
// role, so each run tests the migrations of this build.
void prepare_template(const db::EmbeddedCluster& cluster);

// This process's handle on the shared cluster: attached to the one in $IRONHOLD_TEST_CLUSTER
// (started by the pg_cluster fixture), or, when that is unset, a private one under a temporary
// directory, prepared here and stopped and removed at exit.
db::EmbeddedCluster& shared_cluster();

// A name no other test process will pick: prefix, pid and random hex ("t_4242_9f3a0c1d").
std::string unique_name(std::string_view prefix);

// A new directory under the system temporary directory, removed with its contents on destruction.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "ironhold-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace ironhold::test

#pragma once
// A throwaway database per test, in the test run's shared PostgreSQL cluster.
#include <string>

namespace ironhold::db {
class EmbeddedCluster;
}

namespace ironhold::test {

// A fresh database for one test, created with CREATE DATABASE ... TEMPLATE ironhold_template in
// the run's shared cluster (directory from env IRONHOLD_TEST_CLUSTER; if unset, one is started
// under a temporary directory so a test binary also runs alone), dropped (WITH (FORCE)) in the
// destructor. Names are unique across parallel ctest processes.
class TestDatabase {
 public:
  enum class Kind {
    migrated,  // a copy of the template: every bundled migration applied
    empty,     // owned by the owner role, nothing in it (for migration tests)
  };
  explicit TestDatabase(Kind kind = Kind::migrated);
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  const std::string& name() const;
  std::string url() const;        // runtime role
  std::string owner_url() const;  // owner role
  std::string superuser_url() const;
  // Runs SQL as the owner role, for tests that set up a state no API reaches (a node already
  // deployed) or look behind the API; returns the first column of the first row, or "".
  std::string execute(const std::string& sql) const;

 private:
  db::EmbeddedCluster& cluster_;
  std::string name_;
};

}  // namespace ironhold::test

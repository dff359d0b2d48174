#include "tests/support/test_database.hpp"

#include <pqxx/pqxx>

#include "inventory/db/embedded_cluster.hpp"
#include "inventory/error.hpp"
#include "tests/support/test_cluster.hpp"

namespace ironhold::test {

TestDatabase::TestDatabase(Kind kind) : cluster_(shared_cluster()), name_(unique_name("t")) {
  try {
    if (kind == Kind::migrated)
      cluster_.create_database(name_, template_database);
    else
      cluster_.create_database(name_);
  } catch (const Error& e) {
    throw Error(e.kind(),
                std::string(e.what()) +
                    " (the pg_cluster fixture prepares the template: run the tests through "
                    "ctest, or unset IRONHOLD_TEST_CLUSTER to use a private cluster)");
  }
}

TestDatabase::~TestDatabase() {
  try {
    cluster_.drop_database(name_);
  } catch (...) {
    // A leftover database in a throwaway cluster is harmless; a throwing destructor is not.
  }
}

const std::string& TestDatabase::name() const {
  return name_;
}
std::string TestDatabase::url() const {
  return cluster_.runtime_url(name_);
}
std::string TestDatabase::owner_url() const {
  return cluster_.owner_url(name_);
}
std::string TestDatabase::superuser_url() const {
  return cluster_.superuser_url(name_);
}

std::string TestDatabase::execute(const std::string& sql) const {
  pqxx::connection connection(owner_url());
  pqxx::work tx(connection);
  const auto rows = tx.exec(sql);
  tx.commit();
  if (rows.empty() || rows.columns() == 0 || rows[0][0].is_null()) return "";
  return rows[0][0].as<std::string>();
}

}  // namespace ironhold::test

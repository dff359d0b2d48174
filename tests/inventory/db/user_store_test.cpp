// Users in PostgreSQL: passwords kept as self-describing scrypt hashes and re-hashed under
// stronger parameters at the next sign-in, roles per project, and the rules for new passwords and
// for removing projects.
#include "inventory/db/user_store.hpp"

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "inventory/db/project_store.hpp"
#include "inventory/error.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace user_store_test {

using namespace ironhold;
using ironhold::test::TestDatabase;

namespace {

std::string stored_hash(TestDatabase& database, const std::string& name) {
  pqxx::connection c(database.owner_url());
  pqxx::work tx(c);
  return tx.exec_params1("SELECT password_hash FROM users WHERE name = $1", name)[0]
      .as<std::string>();
}

}  // namespace

TEST_CASE("a password is checked against its hash and re-hashed when parameters were raised",
          "[db][users]") {
  TestDatabase database;
  db::Database db{db::DatabaseOptions{.url = database.url(), .pool_size = 2}};
  db::UserStore weak(db, {.log2_n = 10, .r = 8, .p = 1});
  const auto ada = weak.add("ada", "correct horse battery", "test");
  const std::string first = stored_hash(database, "ada");
  CHECK(first.rfind("$scrypt$ln=10,r=8,p=1$", 0) == 0);
  CHECK(first.find("correct horse") == std::string::npos);

  CHECK_FALSE(weak.check_password("ada", "wrong horse battery"));
  CHECK_FALSE(weak.check_password("nobody", "correct horse battery"));
  REQUIRE(weak.check_password("ada", "correct horse battery"));
  CHECK(stored_hash(database, "ada") == first);  // same parameters: kept

  db::UserStore stronger(db, {.log2_n = 11, .r = 8, .p = 1});
  const auto signed_in = stronger.check_password("ada", "correct horse battery");
  REQUIRE(signed_in);
  CHECK(signed_in->last_sign_in_at);
  const std::string second = stored_hash(database, "ada");
  CHECK(second.rfind("$scrypt$ln=11,r=8,p=1$", 0) == 0);
  // The old store still reads the new hash: the parameters travel with it.
  CHECK(weak.check_password("ada", "correct horse battery"));

  const auto changed = weak.set_password(ada.id, "another long password");
  CHECK(changed.password_changed_at);
  CHECK_FALSE(weak.check_password("ada", "correct horse battery"));
  CHECK(weak.check_password("ada", "another long password"));
}

TEST_CASE("new passwords and names are checked, grants need a known project", "[db][users]") {
  TestDatabase database;
  db::Database db{db::DatabaseOptions{.url = database.url(), .pool_size = 2}};
  db::UserStore users(db, {.log2_n = 10, .r = 8, .p = 1});
  db::ProjectStore projects(db);

  auto kind_of = [](auto&& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return e.kind();
    }
    return ErrorKind::internal;
  };
  CHECK(kind_of([&] { users.add("ada", "short", "t"); }) == ErrorKind::unprocessable);
  CHECK(kind_of([&] { users.add("no spaces", "long enough pass", "t"); }) ==
        ErrorKind::unprocessable);
  users.add("ada", "long enough pass", "t");
  CHECK(kind_of([&] { users.add("ada", "long enough pass", "t"); }) == ErrorKind::conflict);
  CHECK(kind_of([&] {
          users.grant("ada", {std::string("lab"), Role::operator_}, "t");
        }) == ErrorKind::not_found);

  projects.add("lab", "the lab", "t");
  auto ada = users.grant("ada", {std::string("lab"), Role::operator_}, "t");
  ada = users.grant("ada", {std::string("lab"), Role::operator_}, "t");  // again: no-op
  ada = users.grant("ada", {std::nullopt, Role::viewer}, "t");
  REQUIRE(ada.grants.size() == 2);
  CHECK(users.grants_of(ada.id).size() == 2);
  CHECK(kind_of([&] {
          users.revoke("ada", {std::string("lab"), Role::admin});
        }) == ErrorKind::not_found);
  ada = users.revoke("ada", {std::string("lab"), Role::operator_});
  REQUIRE(ada.grants.size() == 1);
  CHECK_FALSE(ada.grants[0].project);

  // A project that held nothing goes (its grants with it); "default" never does.
  users.grant("ada", {std::string("lab"), Role::auditor}, "t");
  projects.remove("lab");
  CHECK(users.get("ada")->grants.size() == 1);
  CHECK(kind_of([&] { projects.remove("default"); }) == ErrorKind::conflict);
  CHECK(kind_of([&] { projects.add("Bad Name", "", "t"); }) == ErrorKind::unprocessable);

  users.remove("ada");
  CHECK_FALSE(users.get("ada"));
}

}  // namespace user_store_test

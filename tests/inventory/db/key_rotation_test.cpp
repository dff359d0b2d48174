// Master key rotation against a real PostgreSQL: every sealed credential is re-sealed under the new
// key; a "running instance" that only knew the old key keeps opening them (it reads the key file
// again when a value opens under none of its keys) and seals with the new one once it has; a value
// no key opens is counted and left alone, never lost.
#include "inventory/db/key_rotation.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <pqxx/pqxx>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/node_secrets.hpp"
#include "inventory/db/node_store.hpp"
#include "inventory/model/node_spec.hpp"
#include "tests/support/random_key.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace key_rotation_test {

using namespace ironhold;
using ironhold::test::random_key;
using ironhold::test::TestDatabase;

namespace {

std::string sealed_hex(TestDatabase& database, const std::string& node_id) {
  return database.execute("SELECT encode(sealed, 'hex') FROM node_credentials WHERE node_id = '" +
                          node_id + "'");
}

}  // namespace

TEST_CASE("rotating the master key re-seals every credential while instances keep working",
          "[crypto][rotation]") {
  TestDatabase database;
  db::Database db{db::DatabaseOptions{.url = database.url(), .pool_size = 2}};
  const auto dir = std::filesystem::temp_directory_path() / ("ironhold-keys-" + database.name());
  std::filesystem::create_directories(dir);
  const auto key_file = dir / "master.key";
  const crypto::Key old_key = random_key();
  crypto::write_master_keyring(key_file, {old_key, {}});

  // The running instance: its keys from the file, read again when needed.
  crypto::SecretBox running(crypto::load_master_keyring(key_file, false));
  running.set_source([&] { return std::optional(crypto::load_master_keyring(key_file, false)); });
  db::NodeStore nodes(db, running);
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i)
    ids.push_back(
        nodes
            .create(parse_node_spec(
                {{"name", "gpu-" + std::to_string(i)},
                 {"driver", "redfish"},
                 {"endpoint", "https://127.0.0.2:" + std::to_string(100 + i)},
                 {"credentials", {{"username", "root"}, {"password", "pw-" + std::to_string(i)}}}}))
            .id);
  const std::string old_id = crypto::key_id_of(old_key);
  CHECK(db::secrets_not_under(db, old_id) == 0);

  // The rotation: the new key first in the file, the old one still there; then re-seal.
  const crypto::Key new_key = random_key();
  crypto::write_master_keyring(key_file, {new_key, {old_key}});
  const crypto::SecretBox rotor(crypto::load_master_keyring(key_file, false));
  const db::ResealReport report = db::reseal_secrets(db, rotor);
  CHECK(report.node_credentials == 3);
  CHECK(report.unreadable == 0);
  CHECK(db::secrets_not_under(db, crypto::key_id_of(new_key)) == 0);

  // The running instance never heard of the new key, yet opens every re-sealed value.
  for (int i = 0; i < 3; ++i) {
    const auto secrets =
        db::open_node_secrets(running, ids[i], sealed_hex(database, ids[i]).c_str());
    CHECK(secrets.credentials->password == "pw-" + std::to_string(i));
  }
  CHECK(running.key_id() == crypto::key_id_of(new_key));  // and now seals with it

  // The old key leaves the file; everything still opens, and nothing opens under it alone.
  crypto::write_master_keyring(key_file, {new_key, {}});
  CHECK(running.refresh());
  const auto again = db::open_node_secrets(running, ids[0], sealed_hex(database, ids[0]).c_str());
  CHECK(again.credentials->password == "pw-0");
  const crypto::SecretBox old_only(old_key);
  std::vector<std::uint8_t> bytes;
  crypto::from_hex(sealed_hex(database, ids[0]), bytes);
  CHECK_THROWS(old_only.open(bytes, ids[0]));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a credential no key opens is counted and left as it is", "[crypto][rotation]") {
  TestDatabase database;
  db::Database db{db::DatabaseOptions{.url = database.url(), .pool_size = 2}};
  const crypto::SecretBox lost(random_key());
  db::NodeStore nodes(db, lost);
  const std::string id =
      nodes
          .create(parse_node_spec({{"name", "gpu-lost"},
                                   {"driver", "redfish"},
                                   {"endpoint", "https://127.0.0.2:7"},
                                   {"credentials", {{"username", "u"}, {"password", "p"}}}}))
          .id;
  const std::string before = sealed_hex(database, id);
  const crypto::SecretBox rotor(random_key());
  const db::ResealReport report = db::reseal_secrets(db, rotor);
  CHECK(report.unreadable == 1);
  CHECK(report.total() == 0);
  CHECK(sealed_hex(database, id) == before);
  CHECK(db::secrets_not_under(db, rotor.key_id()) == 1);
}

TEST_CASE("the master key file holds the current key first, then older ones",
          "[crypto][rotation]") {
  const auto dir = std::filesystem::temp_directory_path() / "ironhold-keyring-test";
  std::filesystem::create_directories(dir);
  const auto file = dir / "master.key";
  std::filesystem::remove(file);
  const crypto::Key a = random_key(), b = random_key();
  crypto::write_master_keyring(file, {a, {b}});
  CHECK((std::filesystem::status(file).permissions() & std::filesystem::perms::group_all) ==
        std::filesystem::perms::none);
  const auto ring = crypto::load_master_keyring(file, false);
  CHECK(ring.current == a);
  REQUIRE(ring.previous.size() == 1);
  CHECK(ring.previous[0] == b);
  CHECK(crypto::load_master_key(file, false) == a);
  CHECK_THROWS_WITH(crypto::load_key_file(file, false, "audit key", "--audit-key-file"),
                    Catch::Contains("exactly one key"));
  std::filesystem::remove_all(dir);
}

}  // namespace key_rotation_test

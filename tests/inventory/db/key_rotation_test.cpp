// Master key rotation against a real PostgreSQL: every sealed credential is re-sealed under the new
// key; a "running instance" that only knew the old key keeps opening them (it reads the key file
// again when a value opens under none of its keys) and seals with the new one once it has; cloud
// credentials, tasks' write-only parameters and alert receivers' secrets are re-sealed alike and
// still open through their stores under the new key alone; a value no key opens is counted and
// left alone, never lost, while a deleted account's or receiver's wiped secret holds nothing back.
#include "inventory/db/key_rotation.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <pqxx/pqxx>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/alert_evaluation.hpp"
#include "inventory/db/alert_outbox.hpp"
#include "inventory/db/alert_store.hpp"
#include "inventory/db/cloud_account_store.hpp"
#include "inventory/db/node_secrets.hpp"
#include "inventory/db/node_store.hpp"
#include "inventory/db/task_store.hpp"
#include "inventory/model/cloud_account.hpp"
#include "inventory/model/node_spec.hpp"
#include "inventory/model/task.hpp"
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

const std::string kCloudSecret = "cloud-secret-key-before-rotation-5d1e";
const std::string kAdminPassword = "admin-password-before-rotation-90ab";
const std::string kReceiverSecret = "receiver-secret-before-rotation-c37f";

// A BCC account and one of its instances as a sync records it: critical, so that the alert
// evaluation has something to tell the receivers.
CloudAccount enroll_account(db::CloudAccountStore& accounts, const std::string& name,
                            const std::string& instance) {
  const CloudAccount account = accounts.create(parse_cloud_account_spec(
      {{"name", name},
       {"provider", "bcc"},
       {"region", "bj"},
       {"endpoint", "http://127.0.0.1:9/"},
       {"credentials", {{"access_key", "ak-" + name}, {"secret_key", kCloudSecret}}}}));
  auto jobs = accounts.claim("sync", 10, std::chrono::seconds(60));
  REQUIRE(jobs.size() == 1);
  CloudInstance vm;
  vm.provider_id = "i-" + instance;
  vm.name = instance;
  vm.provider_state = "Running";
  vm.power_state = PowerState::on;
  vm.health = Health::critical;
  InstanceListing listing;
  listing.instances = {vm};
  REQUIRE(accounts.record_sync(jobs[0], "sync", listing, std::chrono::milliseconds(1)).created ==
          1);
  return account;
}

db::NewReceiver receiver(const std::string& name, const std::string& secret) {
  return {name, "http://127.0.0.1:9/" + name, secret, "warning", std::nullopt, "test"};
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

// A database and the stores that seal cloud credentials and receiver secrets, under a key that a
// test then rotates away.
struct SealedUnderOldKey {
  TestDatabase database;
  db::Database db{
      db::DatabaseOptions{.url = database.url(), .pool_size = 2, .audit_key = crypto::Key{7}}};
  const crypto::Key old_key = random_key();
  const crypto::SecretBox before{old_key};
  db::CloudAccountStore accounts{db, before};
  db::AlertStore alerts{db, before};
};

TEST_CASE(
    "cloud credentials, task secrets and receiver secrets are re-sealed and open under the new key "
    "alone",
    "[crypto][rotation]") {
  SealedUnderOldKey sealed_under;
  auto& [database, db, old_key, before, accounts, alerts] = sealed_under;
  db::TaskStore tasks(db, before);

  // Sealed under the old key the way the service seals them: an enrolled account, a reprovision
  // with its administrator password, a receiver with its signing secret.
  const CloudAccount account = enroll_account(accounts, "baidu", "vm-01");
  const db::Receiver pager = alerts.add_receiver(receiver("pager", kReceiverSecret));
  // The critical instance is an alert, and the receiver has a notification waiting.
  REQUIRE(db::evaluate_alerts(db).notifications == 1);
  db::NewTask reprovision;
  reprovision.kind = TaskKind::reprovision;
  reprovision.node = "vm-01";
  reprovision.parameters = parse_task_parameters(
      TaskKind::reprovision, {{"image", "ubuntu-24.04"}, {"admin_password", kAdminPassword}});
  reprovision.requested_by = "tester";
  const db::NewTask one[] = {reprovision};
  const Task task = tasks.create(one, std::nullopt).tasks.at(0);

  auto sealed = [&](const std::string& table, const std::string& column, const std::string& id) {
    return database.execute("SELECT encode(" + column + ", 'hex') FROM " + table + " WHERE id = '" +
                            id + "'");
  };
  const std::string account_before = sealed("cloud_accounts", "sealed", account.id);
  const std::string task_before = sealed("tasks", "sealed_secrets", task.id);
  const std::string receiver_before = sealed("alert_receivers", "sealed", pager.id);
  REQUIRE_FALSE(account_before.empty());
  REQUIRE_FALSE(task_before.empty());
  REQUIRE_FALSE(receiver_before.empty());

  const crypto::Key new_key = random_key();
  const db::ResealReport report =
      db::reseal_secrets(db, crypto::SecretBox(crypto::Keyring{new_key, {old_key}}));
  CHECK(report.cloud_accounts == 1);
  CHECK(report.task_secrets == 1);
  CHECK(report.receiver_secrets == 1);
  CHECK(report.unreadable == 0);
  CHECK(db::secrets_not_under(db, crypto::key_id_of(new_key)) == 0);
  CHECK(sealed("cloud_accounts", "sealed", account.id) != account_before);
  CHECK(sealed("tasks", "sealed_secrets", task.id) != task_before);
  CHECK(sealed("alert_receivers", "sealed", pager.id) != receiver_before);

  // The old key is gone: each secret opens, through the store that uses it, to what was sealed.
  const crypto::SecretBox after(new_key);
  CHECK(db::CloudAccountStore(db, after).node_target("vm-01").account.credentials["secret_key"] ==
        kCloudSecret);
  const auto jobs = db::TaskStore(db, after).claim("worker", 10, std::chrono::seconds(60));
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].task.id == task.id);
  CHECK(jobs[0].secrets.value("admin_password", "") == kAdminPassword);
  const auto deliveries = db::AlertOutbox(db, after).claim("sender", 10, std::chrono::seconds(60));
  REQUIRE(deliveries.size() == 1);
  CHECK(deliveries[0].receiver_id == pager.id);
  CHECK(deliveries[0].secret == kReceiverSecret);

  // And the old key alone opens none of them any more.
  const crypto::SecretBox old_only(old_key);
  CHECK_THROWS(db::CloudAccountStore(db, old_only).node_target("vm-01"));
  std::vector<std::uint8_t> bytes;
  REQUIRE(crypto::from_hex(sealed("alert_receivers", "sealed", pager.id), bytes));
  CHECK_THROWS(old_only.open(bytes, pager.id));
  REQUIRE(crypto::from_hex(sealed("tasks", "sealed_secrets", task.id), bytes));
  CHECK_THROWS(old_only.open(bytes, task.id));
}

TEST_CASE("a deleted account's or receiver's wiped secret holds no rotation back",
          "[crypto][rotation]") {
  SealedUnderOldKey sealed_under;
  auto& [database, db, old_key, before, accounts, alerts] = sealed_under;
  enroll_account(accounts, "gone", "vm-gone");
  int retired = 0;
  accounts.remove("gone", retired);
  alerts.add_receiver(receiver("old-pager", kReceiverSecret));
  alerts.remove_receiver("old-pager");
  alerts.add_receiver(receiver("pager", kReceiverSecret));

  const crypto::Key new_key = random_key();
  const db::ResealReport report =
      db::reseal_secrets(db, crypto::SecretBox(crypto::Keyring{new_key, {old_key}}));
  CHECK(report.receiver_secrets == 1);
  CHECK(report.cloud_accounts == 0);
  // Nothing is left under the old key, so `keys rotate` may drop it from the key file.
  CHECK(report.unreadable == 0);
  CHECK(db::secrets_not_under(db, crypto::key_id_of(new_key)) == 0);
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

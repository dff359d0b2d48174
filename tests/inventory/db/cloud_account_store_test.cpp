// Cloud accounts and the recording of their syncs, against a real PostgreSQL database: listings
// become nodes with hardware and GPU history, terminated or vanished instances are retired with
// their history kept, a failing account marks its nodes unreachable, deletion retires them.
#include "inventory/db/cloud_account_store.hpp"

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "inventory/db/hardware_store.hpp"
#include "inventory/db/node_store.hpp"
#include "inventory/error.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cloud_account_store_test {

using namespace ironhold;
using ironhold::test::TestDatabase;
using nlohmann::json;

namespace {

const std::string kSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

struct Fixture {
  TestDatabase database;
  db::Database db{db::DatabaseOptions{database.url(), 2}};
  crypto::SecretBox box{crypto::Key{}};
  db::CloudAccountStore accounts{db, box};
  db::NodeStore nodes{db, box};
  db::HardwareStore hardware{db};

  CloudAccount enroll(const std::string& name = "aws-gpu") {
    return accounts.create(parse_cloud_account_spec(
        {{"name", name},
         {"provider", "ec2"},
         {"region", "us-east-1"},
         {"endpoint", "http://127.0.0.1:1/"},
         {"credentials", {{"access_key_id", "AKIDEXAMPLE"}, {"secret_access_key", kSecret}}}}));
  }

  db::CloudSyncJob claim_one() {
    auto jobs = accounts.claim("test-owner", 10, std::chrono::seconds(60));
    REQUIRE(jobs.size() == 1);
    return jobs[0];
  }

  db::CloudSyncSummary sync(const std::vector<CloudInstance>& instances) {
    InstanceListing listing;
    listing.instances = instances;
    return accounts.record_sync(claim_one(), "test-owner", listing, std::chrono::milliseconds(5));
  }

  // Runs SQL as the owner, for what the API cannot do (moving time).
  void sql(const std::string& statement) {
    pqxx::connection c(database.owner_url());
    pqxx::work tx(c);
    tx.exec0(statement);
    tx.commit();
  }

  long long count(const std::string& query) {
    pqxx::connection c(database.owner_url());
    pqxx::nontransaction tx(c);
    return tx.exec1(query)[0].as<long long>();
  }
};

CloudInstance gpu_instance(const std::string& id, const std::string& name, PowerState power,
                           int gpus) {
  CloudInstance i;
  i.provider_id = id;
  i.name = name;
  i.provider_state = power == PowerState::on ? "running" : "stopped";
  i.power_state = power;
  i.health = Health::ok;
  i.zone = "us-east-1a";
  i.instance_type = "p5.48xlarge";
  i.image_id = "ami-0123456789abcdef0";
  i.summary.cpu_count = 192;
  i.summary.memory_gib = 2048;
  i.summary.gpu_model = "NVIDIA H100";
  i.summary.gpu_count = gpus;
  for (int g = 0; g < gpus; ++g) {
    Component c;
    c.kind = ComponentKind::gpu;
    c.slot = "GPU" + std::to_string(g);
    c.name = "GPU " + std::to_string(g);
    c.model = "NVIDIA H100";
    i.components.push_back(c);
  }
  i.tags = {{"team", "vision"}, {"Name", name}};
  return i;
}

}  // namespace

TEST_CASE("a cloud account's credentials are sealed and never part of what is read back",
          "[db][cloud]") {
  Fixture f;
  const CloudAccount a = f.enroll();
  CHECK(a.spec.provider == "ec2");
  CHECK(a.spec.credentials.empty());
  CHECK(a.credential_kind == "access_key");
  CHECK(a.credential_identity["access_key_id"] == "AKIDEXAMPLE");
  CHECK(to_json(a).dump().find(kSecret) == std::string::npos);
  CHECK(f.count("SELECT count(*) FROM cloud_accounts WHERE position('" + kSecret +
                "' IN encode(sealed, 'escape')) > 0") == 0);
  // Only a driver's claim opens them.
  const auto job = f.claim_one();
  CHECK(job.target.credentials["secret_access_key"] == kSecret);
  CHECK_THROWS_AS(f.enroll(), Error);  // the name is taken
  CHECK(f.accounts.get("aws-gpu").id == a.id);
  CHECK(f.accounts.get(a.id).spec.name == "aws-gpu");
}

TEST_CASE("a sync enrolls every instance as a cloud node with its GPUs, image and location",
          "[db][cloud]") {
  Fixture f;
  const CloudAccount a = f.enroll();
  const auto summary = f.sync({gpu_instance("i-0aaa", "train-01", PowerState::on, 8),
                               gpu_instance("i-0bbb", "", PowerState::off, 8)});
  CHECK(summary.recorded);
  CHECK(summary.created == 2);

  const Node n = f.nodes.get("train-01");
  CHECK(n.source == Source::cloud);
  CHECK(n.driver == "ec2");
  CHECK(n.provider_id == "i-0aaa");
  CHECK(n.cloud_account_id == a.id);
  CHECK(n.power_state == PowerState::on);
  CHECK(n.health == Health::ok);
  CHECK(n.reachable == true);
  CHECK(n.lifecycle == Lifecycle::deployed);
  CHECK(n.location.site == "us-east-1");
  CHECK(n.location.rack == "us-east-1a");
  CHECK(n.model == "p5.48xlarge");
  // The provider's name stays as the raw name; gpu_model is what the GPU catalogue makes of it
  // for this instance type.
  CHECK(n.hardware["gpu_model_raw"] == "NVIDIA H100");
  {
    pqxx::connection c(f.database.owner_url());
    pqxx::nontransaction tx(c);
    CHECK(n.hardware["gpu_model"] ==
          tx.exec1("SELECT resolve_gpu_model('NVIDIA H100', 'cloud', 'p5.48xlarge')")[0]
              .as<std::string>());
  }
  CHECK(n.hardware["gpu_count"] == 8);
  CHECK(n.hardware["cpu_count"] == 192);
  CHECK(n.identity["instance_type"] == "p5.48xlarge");
  CHECK(n.tags["team"] == "vision");
  CHECK(f.hardware.components(n.id).size() == 8);
  const auto firmware = f.hardware.firmware(n.id, false);
  REQUIRE(firmware.size() == 1);
  CHECK(firmware[0]["component"] == "image");
  CHECK(firmware[0]["version"] == "ami-0123456789abcdef0");
  // A nameless instance is named after its account and id.
  CHECK(f.nodes.get("aws-gpu-i-0bbb").provider_id == "i-0bbb");
  // The account counts them; cloud nodes are never on the BMC poll schedule.
  CHECK(f.accounts.get(a.id).node_count == 2);
  CHECK(f.count("SELECT count(*) FROM poll_schedule") == 0);
}

TEST_CASE("later syncs follow power and image changes and keep the old image as history",
          "[db][cloud]") {
  Fixture f;
  f.enroll();
  f.sync({gpu_instance("i-0aaa", "train-01", PowerState::on, 8)});
  f.sql("UPDATE cloud_accounts SET next_sync = now()");
  auto changed = gpu_instance("i-0aaa", "renamed-by-provider", PowerState::off, 8);
  changed.image_id = "ami-0fedcba9876543210";
  changed.tags = {{"team", "speech"}};
  f.sync({changed});

  const Node n = f.nodes.get("train-01");  // the node keeps its name
  CHECK(n.power_state == PowerState::off);
  CHECK(n.tags["team"] == "speech");
  CHECK_FALSE(n.tags.contains("Name"));  // a provider tag that went away goes
  const auto history = f.hardware.firmware(n.id, true);
  REQUIRE(history.size() == 2);
  CHECK(history[0]["version"] == "ami-0fedcba9876543210");
  CHECK(history[1]["version"] == "ami-0123456789abcdef0");
  CHECK_FALSE(history[1]["until"].is_null());
  CHECK(f.count("SELECT count(*) FROM events WHERE kind = 'power_change' AND node_id = '" + n.id +
                "'") == 1);
}

TEST_CASE("a terminated or vanished instance retires its node and keeps its history",
          "[db][cloud]") {
  Fixture f;
  f.enroll();
  f.sync({gpu_instance("i-0aaa", "a", PowerState::on, 8),
          gpu_instance("i-0bbb", "b", PowerState::on, 1)});
  f.sql("UPDATE cloud_accounts SET next_sync = now()");
  auto terminated = gpu_instance("i-0aaa", "a", PowerState::unknown, 8);
  terminated.gone = true;
  terminated.provider_state = "terminated";
  const auto summary = f.sync({terminated});  // and i-0bbb is no longer listed at all
  CHECK(summary.retired == 2);

  for (const char* name : {"a", "b"}) {
    const Node n = f.nodes.get(name);
    CHECK(n.lifecycle == Lifecycle::retired);
    CHECK(n.retired_at);
    // Components and firmware stay as closed history.
    CHECK(f.count("SELECT count(*) FROM components WHERE node_id = '" + n.id +
                  "' AND valid_to IS NOT NULL") > 0);
    CHECK(f.count("SELECT count(*) FROM components WHERE node_id = '" + n.id +
                  "' AND valid_to IS NULL") == 0);
  }
  CHECK(f.count("SELECT count(*) FROM events WHERE kind = 'cloud_instance_terminated'") == 1);
  CHECK(f.count("SELECT count(*) FROM events WHERE kind = 'cloud_instance_gone'") == 1);
  // A terminated instance listed again (EC2 shows them for an hour) enrolls nothing.
  f.sql("UPDATE cloud_accounts SET next_sync = now()");
  CHECK(f.sync({terminated}).created == 0);
}

TEST_CASE("a failing sync keeps the nodes, marks them unreachable and the account with the error",
          "[db][cloud]") {
  Fixture f;
  const CloudAccount a = f.enroll();
  f.sync({gpu_instance("i-0aaa", "a", PowerState::on, 8)});
  f.sql("UPDATE cloud_accounts SET next_sync = now()");
  InstanceListing failed;
  failed.error = DriverError{DriverErrorCode::auth_failed,
                             "AuthFailure: AWS was not able to "
                             "validate the provided access credentials"};
  const auto job = f.claim_one();
  f.accounts.record_sync(job, "test-owner", failed, std::chrono::milliseconds(3));

  const CloudAccount after = f.accounts.get(a.id);
  CHECK(after.last_error == "auth_failed");
  CHECK(after.last_error_message->find("AuthFailure") != std::string::npos);
  CHECK(after.sync_failures == 1);
  CHECK(after.node_count == 1);
  const Node n = f.nodes.get("a");
  CHECK(n.lifecycle == Lifecycle::deployed);
  CHECK(n.reachable == false);
  CHECK(n.last_error == "auth_failed");
  // Retried sooner than the 5-minute interval: 30 s after the first failure.
  CHECK(f.count("SELECT count(*) FROM cloud_accounts WHERE next_sync < now() + interval '31 "
                "seconds' AND next_sync > now() + interval '25 seconds'") == 1);

  // The next good listing brings them back.
  f.sql("UPDATE cloud_accounts SET next_sync = now()");
  f.sync({gpu_instance("i-0aaa", "a", PowerState::on, 8)});
  CHECK(f.nodes.get("a").reachable == true);
  CHECK_FALSE(f.accounts.get(a.id).last_error);
}

TEST_CASE(
    "an account's sync is leased: one instance at a time, and a request made during a sync "
    "makes it due again at once",
    "[db][cloud]") {
  Fixture f;
  f.enroll();
  const auto jobs = f.accounts.claim("one", 10, std::chrono::seconds(60));
  REQUIRE(jobs.size() == 1);
  CHECK(f.accounts.claim("two", 10, std::chrono::seconds(60)).empty());
  f.accounts.request_sync("aws-gpu");  // an action happened while listing
  InstanceListing listing;
  f.accounts.record_sync(jobs[0], "one", listing, std::chrono::milliseconds(1));
  CHECK(f.accounts.claim("two", 10, std::chrono::seconds(60)).size() == 1);
  // Another owner's result for a lease it no longer holds is not recorded.
  CHECK_FALSE(
      f.accounts.record_sync(jobs[0], "one", listing, std::chrono::milliseconds(1)).recorded);
}

TEST_CASE("deleting a cloud account retires its nodes and wipes its credentials", "[db][cloud]") {
  Fixture f;
  const CloudAccount a = f.enroll();
  f.sync({gpu_instance("i-0aaa", "a", PowerState::on, 8),
          gpu_instance("i-0bbb", "b", PowerState::on, 8)});
  int retired = 0;
  f.accounts.remove("aws-gpu", retired);
  CHECK(retired == 2);
  CHECK(f.nodes.get("a").lifecycle == Lifecycle::retired);
  CHECK_THROWS_AS(f.accounts.get(a.id), Error);
  CHECK(f.count("SELECT length(sealed) FROM cloud_accounts WHERE id = '" + a.id + "'") == 0);
  CHECK(f.accounts.claim("x", 10, std::chrono::seconds(60)).empty());
  // The name is free again, and the old nodes still name their account.
  f.enroll();
  CHECK(f.nodes.get("a").cloud_account_id == a.id);
}

TEST_CASE("cloud account enrollment is validated per provider", "[db][cloud]") {
  auto kind_of = [](const json& body) {
    try {
      parse_cloud_account_spec(body);
      return std::string("ok");
    } catch (const Error& e) {
      return std::string(e.kind() == ErrorKind::invalid ? "invalid" : "unprocessable") + ":" +
             e.field();
    }
  };
  const json ec2 = {{"name", "x"},
                    {"provider", "ec2"},
                    {"region", "us-east-1"},
                    {"credentials", {{"access_key_id", "A"}, {"secret_access_key", "S"}}}};
  CHECK(kind_of(ec2) == "ok");
  json no_region = ec2;
  no_region.erase("region");
  CHECK(kind_of(no_region) == "unprocessable:region");
  json bad_provider = ec2;
  bad_provider["provider"] = "gcp";
  CHECK(kind_of(bad_provider) == "unprocessable:provider");
  json bcc_creds = ec2;
  bcc_creds["provider"] = "bcc";
  CHECK(kind_of(bcc_creds) == "unprocessable:credentials.access_key_id");
  json os = {{"name", "os"},
             {"provider", "openstack"},
             {"credentials",
              {{"application_credential_id", "id"}, {"application_credential_secret", "s"}}}};
  CHECK(kind_of(os) == "unprocessable:endpoint");
  os["endpoint"] = "ftp://keystone";
  CHECK(kind_of(os) == "unprocessable:endpoint");
  os["endpoint"] = "https://keystone.example:5000/v3";
  CHECK(kind_of(os) == "ok");
  os["credentials"] = {{"username", "u"}, {"password", "p"}};
  CHECK(kind_of(os) == "unprocessable:credentials.project_name");
  os["credentials"] = {{"username", "u"}, {"password", 5}, {"project_name", "p"}};
  CHECK(kind_of(os) == "invalid:credentials.password");
  json secretless = ec2;
  secretless["credentials"] = {{"access_key_id", "A"}, {"secret_access_key", ""}};
  CHECK(kind_of(secretless) == "unprocessable:credentials.secret_access_key");
  json interval = ec2;
  interval["sync_interval_s"] = 5;
  CHECK(kind_of(interval) == "unprocessable:sync_interval_s");
}

TEST_CASE("the node of a listed instance cannot be retired or purged by hand", "[db][cloud]") {
  Fixture f;
  f.enroll();
  f.sync({gpu_instance("i-0aaa", "a", PowerState::on, 8)});
  try {
    f.nodes.retire("a");
    FAIL("retired a node its account still lists");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::conflict);
    CHECK(std::string(e.what()).find("aws-gpu") != std::string::npos);
  }
  CHECK_THROWS_AS(f.nodes.purge("a"), Error);
  int retired = 0;
  f.accounts.remove("aws-gpu", retired);
  f.nodes.purge("a");  // once retired with its account, an admin may purge it
  CHECK_THROWS_AS(f.nodes.get("a"), Error);
}

TEST_CASE("an account with an instance between states is listed again soon", "[db][cloud]") {
  Fixture f;
  f.enroll();
  auto stopping = gpu_instance("i-0aaa", "a", PowerState::transitioning, 8);
  stopping.provider_state = "stopping";
  InstanceListing listing;
  listing.instances = {stopping};
  f.accounts.record_sync(f.claim_one(), "test-owner", listing, std::chrono::milliseconds(1),
                         std::chrono::seconds(7));
  CHECK(f.count("SELECT count(*) FROM cloud_accounts WHERE next_sync <= now() + interval '7 "
                "seconds' AND next_sync > now() + interval '5 seconds'") == 1);
  CHECK(f.nodes.get("a").power_state == PowerState::transitioning);
  // Once settled, the interval applies again.
  f.sql("UPDATE cloud_accounts SET next_sync = now()");
  listing.instances = {gpu_instance("i-0aaa", "a", PowerState::off, 8)};
  f.accounts.record_sync(f.claim_one(), "test-owner", listing, std::chrono::milliseconds(1),
                         std::chrono::seconds(7));
  CHECK(f.count("SELECT count(*) FROM cloud_accounts WHERE next_sync > now() + interval '290 "
                "seconds'") == 1);
}

TEST_CASE("a cloud node takes a new name, tags and maintenance, the rest stays the provider's",
          "[db][cloud]") {
  Fixture f;
  f.enroll();
  f.sync({gpu_instance("i-0aaa", "a", PowerState::on, 8)});
  const Node n = f.nodes.update(
      "a", {{"name", "trainer-a"}, {"tags", {{"owner", "alice"}}}, {"maintenance", true}});
  CHECK(n.name == "trainer-a");
  CHECK(n.tags["owner"] == "alice");
  CHECK(n.tags["team"] == "vision");  // merged, as for any node
  CHECK(n.maintenance);
  try {
    f.nodes.update("trainer-a", {{"endpoint", "https://10.0.0.1"}});
    FAIL("changed a cloud node's endpoint");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::unprocessable);
    CHECK(e.field() == "endpoint");
  }
  // The next sync keeps the operator's name and tag, and the provider's own tags.
  f.sql("UPDATE cloud_accounts SET next_sync = now()");
  f.sync({gpu_instance("i-0aaa", "a", PowerState::on, 8)});
  const Node after = f.nodes.get("trainer-a");
  CHECK(after.tags["owner"] == "alice");
  CHECK(after.tags["team"] == "vision");
  CHECK(after.maintenance);
}

TEST_CASE("an account's request rate is validated", "[db][cloud]") {
  json body = {{"name", "x"},
               {"provider", "bcc"},
               {"region", "bj"},
               {"credentials", {{"access_key", "A"}, {"secret_key", "S"}}},
               {"options", {{"requests_per_second", 2.5}, {"keypair_id", "k-1"}}}};
  CHECK(parse_cloud_account_spec(body).options["requests_per_second"] == 2.5);
  body["options"]["requests_per_second"] = 0;
  CHECK_THROWS_AS(parse_cloud_account_spec(body), Error);
  body["options"]["requests_per_second"] = "fast";
  CHECK_THROWS_AS(parse_cloud_account_spec(body), Error);
  body["options"] = {{"gpu_aliases", {{"a100", "NVIDIA A100"}}}};  // OpenStack's, not BCC's
  CHECK_THROWS_AS(parse_cloud_account_spec(body), Error);
}

}  // namespace cloud_account_store_test

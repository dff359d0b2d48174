// The poll schedule and the recording of poll results, against a real PostgreSQL database.
#include "inventory/db/poll_store.hpp"

#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <set>
#include <thread>

#include "inventory/db/hardware_store.hpp"
#include "inventory/db/node_store.hpp"
#include "inventory/util/concat.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace poll_store_test {

using namespace ironhold;
using ironhold::test::TestDatabase;
using nlohmann::json;

namespace {

struct Fixture {
  TestDatabase database;
  db::Database db{db::DatabaseOptions{database.url(), 2}};
  crypto::SecretBox box{crypto::Key{}};
  db::NodeStore nodes{db, box};
  db::PollStore polls{db, box};
  db::HardwareStore hardware{db};
  const std::vector<std::string> drivers{"redfish"};

  Node enroll(const std::string& name, const std::string& endpoint = "https://127.0.0.1:1") {
    NodeSpec spec;
    spec.name = name;
    spec.driver = "redfish";
    std::string why;
    spec.endpoint = *parse_endpoint(endpoint, why);
    spec.credentials = Credentials{"admin", "secret-" + name};
    return nodes.create(spec);
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

db::PollResult status_result(const std::string& node_id, std::vector<SystemStatus> systems,
                             std::optional<std::string> fingerprint = std::nullopt) {
  StatusReport report;
  report.systems = std::move(systems);
  report.tls_fingerprint = std::move(fingerprint);
  db::PollResult r;
  r.kind = db::PollKind::status;
  r.node_id = node_id;
  r.report = std::move(report);
  r.next_in = std::chrono::milliseconds(30'000);
  return r;
}

db::PollResult failed_result(const std::string& node_id, DriverErrorCode code,
                             const std::string& message) {
  StatusReport report;
  report.error = DriverError{code, message};
  db::PollResult r;
  r.kind = db::PollKind::status;
  r.node_id = node_id;
  r.report = std::move(report);
  r.next_in = std::chrono::milliseconds(60'000);
  return r;
}

SystemInventory inventory_of(const std::string& system_id, const std::string& gpu_firmware) {
  SystemInventory s;
  s.system_id = system_id;
  s.identity.manufacturer = "Acme";
  s.identity.model = "HGX-8";
  s.identity.serial = "SN-" + system_id;
  s.identity.bios_version = "1.2.3";
  s.status = {system_id, PowerState::on, Health::ok};
  s.summary.cpu_count = 2;
  s.summary.gpu_count = 1;
  s.summary.gpu_model = "H100";
  s.summary.memory_gib = 512;
  Component gpu;
  gpu.kind = ComponentKind::gpu;
  gpu.slot = "GPU0";
  gpu.name = "GPU 0";
  gpu.model = "H100";
  gpu.serial = "G0";
  gpu.firmware_version = gpu_firmware;
  gpu.status = Health::ok;
  Component cpu;
  cpu.kind = ComponentKind::cpu;
  cpu.slot = "CPU0";
  cpu.model = "Xeon";
  s.components = {gpu, cpu};
  s.firmware = {FirmwareItem{"GPU0", "GPU 0 firmware", gpu_firmware, true, "GPU0"},
                FirmwareItem{"BMC", "BMC", "5.0", true, std::nullopt}};
  s.sensors = {SensorReading{"Inlet", "temperature", 24.5, "Cel", Health::ok, json::object()},
               SensorReading{
                   "GPU0Temp", "gpu_temperature", 61, "Cel", Health::ok, {{"upper_critical", 90}}}};
  HardwareEvent sel;
  sel.source_id = "/redfish/v1/Systems/" + system_id + "/LogServices/SEL/Entries/1";
  sel.severity = Severity::warning;
  sel.occurred_at = "2026-11-28T10:00:00Z";
  sel.message = "Fan 2 below lower threshold";
  sel.details = {{"entry_type", "SEL"}};
  s.events = {sel};
  return s;
}

db::PollResult inspection(const std::string& node_id, std::vector<SystemInventory> systems) {
  InspectionReport report;
  report.systems = std::move(systems);
  report.manager_firmware = "5.0";
  db::PollResult r;
  r.kind = db::PollKind::inventory;
  r.node_id = node_id;
  r.report = std::move(report);
  return r;
}

}  // namespace

TEST_CASE("enrolling a BMC node schedules its polls, claims lease them once", "[poller][db]") {
  Fixture f;
  const Node a = f.enroll("a");
  const Node b = f.enroll("b");
  auto first = f.polls.claim("one", f.drivers, 100, std::chrono::seconds(60));
  CHECK(first.size() == 6);  // status, sensors, inventory of both
  for (const auto& job : first) {
    REQUIRE(job.target.credentials);
    CHECK(job.target.credentials->password == "secret-" + job.target.node_name);
    CHECK(job.target.endpoint.to_string() == "https://127.0.0.1:1");
  }
  // Leased: another instance gets nothing, not even after the first one's claim returned.
  CHECK(f.polls.claim("two", f.drivers, 100, std::chrono::seconds(60)).empty());
  // Nodes of drivers this instance has no driver for are left alone.
  const std::vector<std::string> ipmi_only{"ipmi"};
  CHECK(f.polls.claim("three", ipmi_only, 100, std::chrono::seconds(60)).empty());
  // An expired lease (its instance died) is taken up by another.
  f.sql("UPDATE poll_schedule SET lease_expires = now() - interval '1 second' WHERE node_id = '" +
        a.id + "'");
  auto again = f.polls.claim("two", f.drivers, 100, std::chrono::seconds(60));
  CHECK(again.size() == 3);
  for (const auto& job : again) CHECK(job.target.node_id == a.id);
  // Retiring a node removes its schedule.
  f.nodes.retire(b.id);
  CHECK(f.count("SELECT count(*) FROM poll_schedule WHERE node_id = '" + b.id + "'") == 0);
}

TEST_CASE("two instances claiming at once never get the same poll", "[poller][db]") {
  Fixture f;
  for (int i = 0; i < 40; ++i) f.enroll(ironhold::util::concat("n", std::to_string(i)));
  std::vector<db::PollJob> one, two;
  std::thread t1([&] {
    for (int i = 0; i < 10; ++i) {
      auto got = f.polls.claim("one", f.drivers, 7, std::chrono::seconds(60));
      one.insert(one.end(), got.begin(), got.end());
    }
  });
  std::thread t2([&] {
    for (int i = 0; i < 10; ++i) {
      auto got = f.polls.claim("two", f.drivers, 7, std::chrono::seconds(60));
      two.insert(two.end(), got.begin(), got.end());
    }
  });
  t1.join();
  t2.join();
  std::set<std::pair<std::string, int>> seen;
  for (const auto* jobs : {&one, &two})
    for (const auto& job : *jobs)
      CHECK(seen.insert({job.target.node_id, static_cast<int>(job.kind)}).second);
  CHECK(seen.size() == 120);
}

TEST_CASE("due polls of failing BMCs are claimed after those of working ones", "[poller][db]") {
  Fixture f;
  const Node failing = f.enroll("failing");
  const Node working = f.enroll("working");
  REQUIRE(f.polls.claim("me", f.drivers, 100, std::chrono::seconds(60)).size() == 6);
  std::vector<db::PollResult> batch;
  batch.push_back(failed_result(failing.id, DriverErrorCode::unreachable, "no answer"));
  batch.push_back(status_result(working.id, {SystemStatus{"1", PowerState::on, Health::ok}}));
  f.polls.record(batch, "me");
  // Only the status polls due and none leased, the first BMC's the longer overdue of the two.
  const auto make_status_due = [&] {
    f.sql(
        "UPDATE poll_schedule SET lease_owner = NULL, lease_expires = NULL, next_due = CASE "
        "WHEN kind <> 'status' THEN now() + interval '1 hour' "
        "WHEN node_id = '" +
        failing.id +
        "' THEN now() - interval '1 hour' "
        "ELSE now() - interval '1 minute' END");
  };
  make_status_due();

  const auto first = f.polls.claim("me", f.drivers, 1, std::chrono::seconds(60));
  REQUIRE(first.size() == 1);
  CHECK(first[0].target.node_id == working.id);
  CHECK(first[0].failures == 0);
  const auto second = f.polls.claim("me", f.drivers, 1, std::chrono::seconds(60));
  REQUIRE(second.size() == 1);
  CHECK(second[0].target.node_id == failing.id);
  CHECK(second[0].failures == 1);

  // One claim with room for both takes both, the working BMC's first.
  f.sql("UPDATE poll_schedule SET lease_owner = NULL, lease_expires = NULL");
  const auto both = f.polls.claim("me", f.drivers, 10, std::chrono::seconds(60));
  REQUIRE(both.size() == 2);
  CHECK(both[0].target.node_id == working.id);
  CHECK(both[1].target.node_id == failing.id);

  // A claim may take fewer of the failing BMCs' polls than it has room for.
  f.sql("UPDATE poll_schedule SET lease_owner = NULL, lease_expires = NULL");
  const auto capped = f.polls.claim("me", f.drivers, 10, std::chrono::seconds(60), 0);
  REQUIRE(capped.size() == 1);
  CHECK(capped[0].target.node_id == working.id);
  const auto rest = f.polls.claim("me", f.drivers, 10, std::chrono::seconds(60), 1);
  REQUIRE(rest.size() == 1);
  CHECK(rest[0].target.node_id == failing.id);

  // Once it answers again, it is back among the working ones.
  batch.clear();
  batch.push_back(status_result(failing.id, {SystemStatus{"1", PowerState::on, Health::ok}}));
  f.polls.record(batch, "me");
  make_status_due();
  const auto recovered = f.polls.claim("me", f.drivers, 1, std::chrono::seconds(60));
  REQUIRE(recovered.size() == 1);
  CHECK(recovered[0].target.node_id == failing.id);
}

TEST_CASE("a status result updates power and health, records changes as events and pins TLS once",
          "[poller][db]") {
  Fixture f;
  const Node a = f.enroll("a");
  f.polls.claim("me", f.drivers, 10, std::chrono::seconds(60));
  const std::string fp1(64, 'a'), fp2(64, 'b');
  std::vector<db::PollResult> batch;
  batch.push_back(status_result(a.id, {{"1", PowerState::on, Health::ok}}, fp1));
  f.polls.record(batch, "me");
  Node after = f.nodes.get(a.id);
  CHECK(after.power_state == PowerState::on);
  CHECK(after.health == Health::ok);
  CHECK(after.reachable == true);
  CHECK(after.tls_fingerprint == fp1);
  CHECK(after.last_seen);
  // The lease went and the next poll is due in about next_in.
  for (const auto& e : f.polls.schedule(a.id))
    if (e.kind == db::PollKind::status) {
      CHECK_FALSE(e.lease_owner);
      CHECK(e.failures == 0);
    }

  // A later fingerprint never replaces the pin (the driver refuses mismatches in the handshake).
  batch.clear();
  batch.push_back(status_result(a.id, {{"1", PowerState::off, Health::critical}}, fp2));
  f.polls.record(batch, "me");
  after = f.nodes.get(a.id);
  CHECK(after.tls_fingerprint == fp1);
  CHECK(after.health == Health::critical);
  db::EventQuery q;
  q.node_id = a.id;
  const auto events = f.hardware.events(q).items;
  std::set<std::string> kinds;
  for (const auto& e : events) kinds.insert(e["kind"].get<std::string>());
  CHECK(kinds.count("tls_pinned"));
  CHECK(kinds.count("health_change"));
  CHECK(kinds.count("power_change"));
}

TEST_CASE("a node that answers as before has its last_seen written once a minute, not per poll",
          "[poller][db]") {
  Fixture f;
  const Node a = f.enroll("a");
  const auto seen_ago = [&] {
    return f.count("SELECT extract(epoch FROM now() - last_seen)::bigint FROM nodes WHERE id = '" +
                   a.id + "'");
  };
  const auto poll_ok = [&] {
    f.sql("UPDATE poll_schedule SET next_due = now() WHERE node_id = '" + a.id + "'");
    f.polls.claim("me", f.drivers, 10, std::chrono::seconds(60));
    std::vector<db::PollResult> batch;
    batch.push_back(status_result(a.id, {{"1", PowerState::on, Health::ok}}));
    f.polls.record(batch, "me");
  };
  poll_ok();
  REQUIRE(seen_ago() < 5);

  // Seen 30 s ago: the same answer writes nothing to the node.
  f.sql("UPDATE nodes SET last_seen = now() - interval '30 seconds'");
  poll_ok();
  CHECK(seen_ago() >= 30);
  // Seen over a minute ago: written again.
  f.sql("UPDATE nodes SET last_seen = now() - interval '90 seconds'");
  poll_ok();
  CHECK(seen_ago() < 5);
  // A node that was unreachable is written at once, however recent its last contact.
  f.sql(
      "UPDATE nodes SET last_seen = now() - interval '10 seconds', reachable = false, "
      "last_error = 'timeout', last_error_message = 'no answer'");
  poll_ok();
  Node after = f.nodes.get(a.id);
  CHECK(after.reachable == true);
  CHECK_FALSE(after.last_error);
  CHECK(seen_ago() < 5);
}

TEST_CASE("a batch refreshes last_seen of the nodes that answer as before, and only theirs",
          "[poller][db]") {
  Fixture f;
  const Node same = f.enroll("same"), nonsense = f.enroll("nonsense"), silent = f.enroll("silent"),
             recent = f.enroll("recent");
  const auto seen_ago = [&](const Node& n) {
    return f.count("SELECT extract(epoch FROM now() - last_seen)::bigint FROM nodes WHERE id = '" +
                   n.id + "'");
  };
  // Their first results: an answer, an answer that makes no sense (the BMC answers: reachable),
  // silence (unreachable) and an answer.
  const auto batch = [&] {
    std::vector<db::PollResult> results;
    results.push_back(status_result(same.id, {{"1", PowerState::on, Health::ok}}));
    results.push_back(
        failed_result(nonsense.id, DriverErrorCode::bad_response, "the body is not JSON"));
    results.push_back(failed_result(silent.id, DriverErrorCode::timeout, "no answer in 30 s"));
    results.push_back(status_result(recent.id, {{"1", PowerState::on, Health::ok}}));
    return results;
  };
  f.sql("UPDATE poll_schedule SET next_due = now() + interval '1 day' WHERE kind <> 'status'");
  f.polls.claim("me", f.drivers, 100, std::chrono::seconds(60));
  f.polls.record(batch(), "me");
  f.sql("UPDATE nodes SET last_seen = now() - interval '90 seconds'");
  f.sql("UPDATE nodes SET last_seen = now() - interval '20 seconds' WHERE id = '" + recent.id +
        "'");
  const long long events = f.count("SELECT count(*) FROM events");
  // The same results again: nothing changes but the refresh of those that answer.
  f.sql("UPDATE poll_schedule SET next_due = now() WHERE kind = 'status'");
  REQUIRE(f.polls.claim("me", f.drivers, 100, std::chrono::seconds(60)).size() == 4);
  f.polls.record(batch(), "me");
  CHECK(seen_ago(same) < 5);
  CHECK(seen_ago(nonsense) < 5);
  CHECK(seen_ago(silent) >= 90);  // the last time it answered
  CHECK(seen_ago(recent) >= 20);  // within the minute: not written
  CHECK(f.count("SELECT count(*) FROM events") == events);
  CHECK(f.nodes.get(nonsense.id).last_error == "bad_response");
  CHECK(f.nodes.get(silent.id).reachable == false);
  CHECK(f.count("SELECT count(*) FROM poll_schedule WHERE lease_owner IS NOT NULL") == 0);
}

TEST_CASE("a failed poll marks the node, backs off and raises one event per new error",
          "[poller][db]") {
  Fixture f;
  const Node a = f.enroll("a");
  f.polls.claim("me", f.drivers, 10, std::chrono::seconds(60));
  std::vector<db::PollResult> batch;
  batch.push_back(failed_result(a.id, DriverErrorCode::tls_pin_mismatch,
                                "the BMC presented another certificate"));
  f.polls.record(batch, "me");
  f.polls.record(batch, "me");
  const Node after = f.nodes.get(a.id);
  CHECK(after.reachable == false);
  CHECK(after.last_error == "tls_pin_mismatch");
  CHECK(after.last_error_message == "the BMC presented another certificate");
  CHECK(f.count("SELECT count(*) FROM events WHERE kind = 'tls_pin_mismatch' AND severity = "
                "'critical'") == 1);
  CHECK(f.count("SELECT failures FROM poll_schedule WHERE kind = 'status' AND node_id = '" + a.id +
                "'") == 2);

  // auth_failed: the BMC answered, so it is reachable, but the credentials are wrong.
  batch.clear();
  batch.push_back(
      failed_result(a.id, DriverErrorCode::auth_failed, "401 from the session service"));
  f.polls.record(batch, "me");
  CHECK(f.nodes.get(a.id).reachable == true);
  CHECK(f.nodes.get(a.id).last_error == "auth_failed");
  // Changing the credentials makes the polls due at once, failures forgotten.
  f.sql("UPDATE poll_schedule SET next_due = now() + interval '1 hour'");
  f.nodes.update(a.id, {{"credentials", {{"username", "admin"}, {"password", "new-one"}}}});
  CHECK(f.count("SELECT count(*) FROM poll_schedule WHERE next_due <= now() AND failures = 0 AND "
                "node_id = '" +
                a.id + "'") == 3);

  // Re-pinning forgets the pin and clears the mismatch.
  batch.clear();
  batch.push_back(failed_result(a.id, DriverErrorCode::tls_pin_mismatch, "again"));
  f.polls.record(batch, "me");
  f.sql(
      "UPDATE nodes SET ssh_host_key = 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAck0' WHERE "
      "id = '" +
      a.id + "'");
  CHECK(f.polls.clear_pins(a.id, true) == "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAck0");
  const Node repinned = f.nodes.get(a.id);
  CHECK_FALSE(repinned.tls_fingerprint);
  CHECK_FALSE(repinned.ssh_host_key);
  CHECK_FALSE(repinned.last_error);
  // Without the certificate's pin (tls: ca or insecure), only the SSH host key is forgotten.
  f.sql(
      "UPDATE nodes SET ssh_host_key = 'SHA256:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBsc2', "
      "tls_fingerprint = '" +
      std::string(64, 'a') + "' WHERE id = '" + a.id + "'");
  CHECK(f.polls.clear_pins(a.id, false) == "SHA256:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBsc2");
  CHECK(f.nodes.get(a.id).tls_fingerprint == std::string(64, 'a'));
  CHECK_FALSE(f.nodes.get(a.id).ssh_host_key);
  CHECK_FALSE(f.polls.clear_pins(a.id, false));
}

TEST_CASE(
    "an inspection fills identity, summary, components, firmware, sensors and logs, keeping "
    "history",
    "[poller][db]") {
  Fixture f;
  const Node a = f.enroll("a");
  std::vector<db::PollResult> batch;
  batch.push_back(inspection(a.id, {inventory_of("1", "96.00.5A.00.01")}));
  f.polls.record(batch, "me");
  Node after = f.nodes.get(a.id);
  CHECK(after.manufacturer == "Acme");
  CHECK(after.serial == "SN-1");
  CHECK(after.hardware["gpu_count"] == 1);
  CHECK(after.hardware["gpu_model"] == "H100");
  CHECK(after.identity["bios_version"] == "1.2.3");
  CHECK(after.identity["bmc_firmware"] == "5.0");
  CHECK(after.last_inspected);
  CHECK(f.hardware.components(a.id).size() == 2);
  CHECK(f.hardware.firmware(a.id, false).size() == 2);
  CHECK(f.hardware.sensors(a.id, {}).items.size() == 2);

  // The same log entry read again is not recorded twice; a new GPU firmware becomes history.
  batch.clear();
  batch.push_back(inspection(a.id, {inventory_of("1", "96.00.5A.00.02")}));
  f.polls.record(batch, "me");
  CHECK(f.count("SELECT count(*) FROM events WHERE kind = 'sel'") == 1);
  const auto current = f.hardware.firmware(a.id, false);
  const auto history = f.hardware.firmware(a.id, true);
  CHECK(current.size() == 2);
  CHECK(history.size() == 3);
  for (const auto& fw : current)
    if (fw["component"] == "GPU0") CHECK(fw["version"] == "96.00.5A.00.02");
  CHECK(f.count("SELECT count(*) FROM components WHERE slot = 'GPU0' AND valid_to IS NOT NULL") ==
        1);
  CHECK(f.count("SELECT count(*) FROM events WHERE kind = 'firmware_changed'") == 1);
  CHECK(f.count("SELECT count(*) FROM events WHERE kind = 'component_changed'") == 1);

  // The node list filters by GPU model.
  NodeQuery q;
  q.filter.gpu_model = {"H100"};
  CHECK(f.nodes.list(q).items.size() == 1);
  q.filter.gpu_model = {"A100"};
  CHECK(f.nodes.list(q).items.empty());
}

TEST_CASE("further Systems behind one BMC become nodes of their own and retire when gone",
          "[poller][db]") {
  Fixture f;
  const Node blade = f.enroll("chassis7");
  std::vector<db::PollResult> batch;
  batch.push_back(inspection(blade.id, {inventory_of("Blade1", "1"), inventory_of("Blade2", "1"),
                                        inventory_of("Blade 3", "1")}));
  f.polls.record(batch, "me");
  const Node second = f.nodes.get("chassis7-Blade2");
  CHECK(second.parent_id == blade.id);
  CHECK(second.system_id == "Blade2");
  CHECK(second.serial == "SN-Blade2");
  CHECK(f.nodes.get("chassis7-Blade-3").serial == "SN-Blade 3");
  CHECK(f.nodes.get(blade.id).serial == "SN-Blade1");
  // Children are polled through the parent: no schedule of their own.
  CHECK(f.count("SELECT count(*) FROM poll_schedule WHERE node_id = '" + second.id + "'") == 0);
  // A status poll reaches each System's node.
  batch.clear();
  batch.push_back(status_result(blade.id, {{"Blade1", PowerState::on, Health::ok},
                                           {"Blade2", PowerState::off, Health::warning},
                                           {"Blade 3", PowerState::on, Health::ok}}));
  f.polls.record(batch, "me");
  CHECK(f.nodes.get(second.id).health == Health::warning);
  CHECK(f.nodes.get(second.id).power_state == PowerState::off);
  // Blade2 is pulled: its node retires, keeping its history.
  batch.clear();
  batch.push_back(
      inspection(blade.id, {inventory_of("Blade1", "1"), inventory_of("Blade 3", "1")}));
  f.polls.record(batch, "me");
  CHECK(f.nodes.get(second.id).retired_at);
  CHECK(f.count("SELECT count(*) FROM components WHERE node_id = '" + second.id + "'") == 2);
  CHECK(f.count("SELECT count(*) FROM components WHERE node_id = '" + second.id +
                "' AND valid_to IS NULL") == 0);
}

TEST_CASE("components of a kind the BMC did not list this time are kept, with their counts",
          "[poller][db]") {
  Fixture f;
  const Node node = f.enroll("hgx1");
  std::vector<db::PollResult> batch;
  batch.push_back(inspection(node.id, {inventory_of("1", "1")}));
  f.polls.record(batch, "me");
  const auto current = [&](const std::string& kind) {
    return f.count("SELECT count(*) FROM components WHERE node_id = '" + node.id +
                   "' AND kind = '" + kind + "' AND valid_to IS NULL");
  };
  REQUIRE(current("cpu") == 1);
  REQUIRE(current("gpu") == 1);

  // The BMC answered its Processors collection empty (a host whose inventory it has not read).
  SystemInventory partial = inventory_of("1", "1");
  partial.components.clear();
  partial.summary.cpu_count = 0;
  partial.summary.gpu_count = 0;
  partial.summary.gpu_model.reset();
  partial.unlisted_kinds = {ComponentKind::cpu, ComponentKind::gpu, ComponentKind::other};
  batch.clear();
  batch.push_back(inspection(node.id, {partial}));
  f.polls.record(batch, "me");
  CHECK(current("cpu") == 1);
  CHECK(current("gpu") == 1);
  const Node kept = f.nodes.get(node.id);
  CHECK(kept.hardware.value("cpu_count", 0) == 2);
  CHECK(kept.hardware.value("gpu_count", 0) == 1);
  CHECK(kept.hardware.value("gpu_model_raw", "") == "H100");
  CHECK(f.count("SELECT count(*) FROM events WHERE node_id = '" + node.id +
                "' AND kind = 'component_removed'") == 0);
  CHECK(f.count("SELECT count(*) FROM events WHERE node_id = '" + node.id +
                "' AND kind = 'inventory_partial' AND severity = 'warning'") == 1);

  // Listed again without the GPU: now it is gone, and said so.
  SystemInventory without_gpu = inventory_of("1", "1");
  std::erase_if(without_gpu.components,
                [](const Component& c) { return c.kind == ComponentKind::gpu; });
  without_gpu.summary.gpu_count = 0;
  without_gpu.summary.gpu_model.reset();
  batch.clear();
  batch.push_back(inspection(node.id, {without_gpu}));
  f.polls.record(batch, "me");
  CHECK(current("gpu") == 0);
  CHECK(current("cpu") == 1);
  CHECK(f.count("SELECT count(*) FROM events WHERE node_id = '" + node.id +
                "' AND kind = 'component_removed'") == 1);
}

TEST_CASE("a result the database refuses loses nothing else in its batch", "[poller][db]") {
  Fixture f;
  const Node a = f.enroll("a");
  const Node b = f.enroll("b");
  SystemInventory hostile = inventory_of("1", "x");
  hostile.components[0].slot = std::string("GPU\0zero", 8);
  hostile.sensors[0].value = std::numeric_limits<double>::quiet_NaN();
  hostile.events[0].message = std::string("bad\0text", 8);
  hostile.events[0].occurred_at = "yesterday-ish";
  std::vector<db::PollResult> batch;
  batch.push_back(inspection(a.id, {hostile}));
  batch.push_back(
      failed_result("00000000-0000-0000-0000-000000000000", DriverErrorCode::timeout, "gone"));
  batch.push_back(status_result(b.id, {{"1", PowerState::on, Health::ok}}));
  f.polls.record(batch, "me");
  CHECK(f.nodes.get(a.id).hardware["gpu_count"] == 1);
  CHECK(f.nodes.get(b.id).power_state == PowerState::on);
  const auto sensors = f.hardware.sensors(a.id, {}).items;
  REQUIRE(sensors.size() == 2);
}

TEST_CASE("a poll that finds what the last one found takes no row lock and writes no node row",
          "[poller][db]") {
  Fixture f;
  const Node a = f.enroll("a");
  // xmin names the transaction that wrote the row version, xmax one that locked or deleted it:
  // both stay as they are when nothing touches the row.
  const auto row_version = [&] {
    pqxx::connection c(f.database.owner_url());
    pqxx::nontransaction tx(c);
    const auto r =
        tx.exec1("SELECT xmin::text || '/' || xmax::text FROM nodes WHERE id = '" + a.id + "'");
    return r[0].as<std::string>();
  };
  const auto record = [&](db::PollResult result) {
    std::vector<db::PollResult> batch;
    batch.push_back(std::move(result));
    f.polls.record(batch, "me");
  };
  const auto finished = [&] {
    return f.count("SELECT count(*) FROM poll_schedule WHERE kind = 'status' AND node_id = '" +
                   a.id + "' AND last_finished IS NOT NULL AND lease_owner IS NULL");
  };

  record(status_result(a.id, {{"1", PowerState::on, Health::ok}}));
  const std::string answered = row_version();
  record(status_result(a.id, {{"1", PowerState::on, Health::ok}}));
  CHECK(row_version() == answered);
  CHECK(finished() == 1);  // the schedule still hears of the poll

  record(failed_result(a.id, DriverErrorCode::timeout, "no answer in 10 s"));
  const std::string failing = row_version();
  CHECK(failing != answered);
  record(failed_result(a.id, DriverErrorCode::timeout, "no answer in 10 s"));
  CHECK(row_version() == failing);
  // Another message is a change: written, without a second event for the same error.
  record(failed_result(a.id, DriverErrorCode::timeout, "no answer in 20 s"));
  CHECK(row_version() != failing);
  CHECK(f.nodes.get(a.id).last_error_message == "no answer in 20 s");
  CHECK(f.count("SELECT count(*) FROM events WHERE kind = 'timeout'") == 1);

  // Back with other power: written, with its events.
  record(status_result(a.id, {{"1", PowerState::off, Health::ok}}));
  CHECK(f.nodes.get(a.id).power_state == PowerState::off);
  CHECK(f.nodes.get(a.id).reachable == true);
  CHECK(f.count("SELECT count(*) FROM events WHERE kind = 'recovered'") == 1);
  CHECK(f.count("SELECT count(*) FROM events WHERE kind = 'power_change'") == 1);
}

TEST_CASE("a failed inspection fails the node's inspection even when the error is the last one's",
          "[poller][db]") {
  Fixture f;
  const Node a = f.enroll("a");
  const auto record = [&](db::PollResult result) {
    std::vector<db::PollResult> batch;
    batch.push_back(std::move(result));
    f.polls.record(batch, "me");
  };
  record(failed_result(a.id, DriverErrorCode::timeout, "no answer in 10 s"));
  f.sql("UPDATE nodes SET lifecycle = 'inspecting' WHERE id = '" + a.id + "'");
  db::PollResult failed = inspection(a.id, {});
  std::get<InspectionReport>(failed.report).error =
      DriverError{DriverErrorCode::timeout, "no answer in 10 s"};
  record(std::move(failed));
  CHECK(f.nodes.get(a.id).lifecycle == Lifecycle::inspect_failed);
}

TEST_CASE("a batch with a result PostgreSQL refuses records the others and frees every lease",
          "[poller][db]") {
  Fixture f;
  const Node a = f.enroll("a");
  const Node b = f.enroll("b");
  f.polls.claim("me", f.drivers, 10, std::chrono::seconds(60));
  // A constraint of the kind a migration could add, refusing what this result writes for a.
  f.sql(
      "CREATE FUNCTION refuse_a() RETURNS trigger LANGUAGE plpgsql AS "
      "$$ BEGIN RAISE EXCEPTION 'refused for the test'; END $$");
  f.sql(
      "CREATE TRIGGER refuse_a BEFORE UPDATE ON nodes FOR EACH ROW "
      "WHEN (NEW.name = 'a' AND NEW.power_state = 'off') EXECUTE FUNCTION refuse_a()");
  f.sql("GRANT EXECUTE ON FUNCTION refuse_a() TO PUBLIC");
  std::vector<db::PollResult> batch;
  batch.push_back(status_result(a.id, {{"1", PowerState::off, Health::ok}}));
  batch.push_back(status_result(b.id, {{"1", PowerState::off, Health::ok}}));
  f.polls.record(batch, "me");
  CHECK(f.nodes.get(a.id).power_state == PowerState::unknown);
  CHECK(f.nodes.get(b.id).power_state == PowerState::off);
  CHECK(f.count("SELECT count(*) FROM poll_schedule WHERE kind = 'status' AND lease_owner IS NULL "
                "AND last_finished IS NOT NULL") == 2);
}

TEST_CASE("what a BMC's log held at the first read is history, later entries are alerts",
          "[poller][db][alerts]") {
  Fixture f;
  const Node a = f.enroll("a");
  const Node b = f.enroll("b");
  // Both logs already hold a fan warning from before Ironhold: recorded as events, no alert.
  f.polls.record(std::vector<db::PollResult>{inspection(a.id, {inventory_of("1", "1.0")}),
                                             inspection(b.id, {inventory_of("1", "1.0")})},
                 "me");
  CHECK(f.count("SELECT count(*) FROM events WHERE kind = 'sel' AND severity = 'warning'") == 2);
  CHECK(f.count("SELECT count(*) FROM alerts WHERE source = 'hardware_log'") == 0);

  // Then a's BMC logs something new; the sensors poll brings it with the old entry again.
  HardwareEvent psu;
  psu.source_id = "/redfish/v1/Systems/1/LogServices/SEL/Entries/2";
  psu.severity = Severity::critical;
  psu.message = "PSU 1 lost input";
  psu.details = {{"entry_type", "SEL"}};
  SensorReport report;
  report.systems = {SystemSensors{"1", {}, {inventory_of("1", "1.0").events[0], psu}}};
  db::PollResult r;
  r.kind = db::PollKind::sensors;
  r.node_id = a.id;
  r.report = std::move(report);
  f.polls.record(std::vector<db::PollResult>{r}, "me");
  CHECK(f.count("SELECT count(*) FROM alerts WHERE source = 'hardware_log'") == 1);
  CHECK(f.count("SELECT count(*) FROM alerts WHERE source = 'hardware_log' AND node_id = '" + a.id +
                "' AND severity = 'critical' AND summary LIKE '%PSU 1 lost input'") == 1);
}

}  // namespace poll_store_test

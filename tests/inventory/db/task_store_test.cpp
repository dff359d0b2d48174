// The task queue in a real PostgreSQL: creation with Idempotency-Key records, claims under
// FOR UPDATE SKIP LOCKED with expiring leases, one task per node at a time, cancellation, sealed
// write-only parameters, and the event and audit entry a finished task leaves.
#include "inventory/db/task_store.hpp"

#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <set>
#include <thread>

#include "inventory/db/poll_store.hpp"
#include "inventory/error.hpp"
#include "tests/inventory/db/store_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace task_store_test {

using namespace ironhold;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct Fixture : ironhold::test::StoreFixture {
  // Runs a query on a connection of its own (what an operator's psql would see).
  pqxx::result query(const std::string& sql) {
    pqxx::connection c(database.url());
    pqxx::work tx(c);
    auto r = tx.exec(sql);
    tx.commit();
    return r;
  }
};

std::set<std::string> ids_of(const std::vector<db::TaskJob>& jobs) {
  std::set<std::string> out;
  for (const auto& j : jobs) out.insert(j.task.id);
  return out;
}

}  // namespace

TEST_CASE("a created task is queued with validated parameters and found by its filters",
          "[tasks][db]") {
  Fixture f;
  const std::string node = f.enroll("gpu-01");
  const Task t = f.create("gpu-01");
  CHECK(t.state == TaskState::queued);
  CHECK(t.node_id == node);
  CHECK(t.node_name == "gpu-01");
  CHECK(t.parameters["action"] == "cycle");
  CHECK(t.parameters["timeout_s"] == 300);  // the default is written down
  CHECK(t.requested_by == "tester");
  CHECK(t.steps.empty());

  f.create("gpu-01", {{"on", true}}, TaskKind::identify);
  db::TaskFilter by_kind;
  by_kind.kind = TaskKind::identify;
  REQUIRE(f.tasks.list(by_kind).items.size() == 1);
  db::TaskFilter by_node;
  by_node.node = "gpu-01";
  by_node.limit = 1;
  const auto first = f.tasks.list(by_node);
  REQUIRE(first.items.size() == 1);
  CHECK(first.more);
  by_node.after_created_at = first.items[0].created_at;
  by_node.after_id = first.items[0].id;
  const auto second = f.tasks.list(by_node);
  REQUIRE(second.items.size() == 1);
  CHECK_FALSE(second.more);
  CHECK(second.items[0].id != first.items[0].id);

  CHECK_THROWS_MATCHES(f.create("no-such-node"), Error, Catch::Predicate<Error>([](const Error& e) {
                         return e.kind() == ErrorKind::not_found;
                       }));
  f.nodes.retire("gpu-01");
  CHECK_THROWS_MATCHES(f.create(node), Error, Catch::Predicate<Error>([](const Error& e) {
                         return e.kind() == ErrorKind::conflict;
                       }));
}

TEST_CASE("task parameters are checked per kind", "[tasks]") {
  auto kind_of = [](const json& body, TaskKind kind) {
    try {
      parse_task_parameters(kind, body);
      return std::string("accepted");
    } catch (const Error& e) {
      return std::string(e.kind() == ErrorKind::invalid ? "400 " : "422 ") + e.field();
    }
  };
  CHECK(kind_of({{"action", "on"}}, TaskKind::power) == "accepted");
  CHECK(kind_of({{"action", "explode"}}, TaskKind::power) == "422 action");
  CHECK(kind_of({{"action", 1}}, TaskKind::power) == "400 action");
  CHECK(kind_of(json::object(), TaskKind::power) == "400 action");
  CHECK(kind_of({{"action", "on"}, {"force", true}}, TaskKind::power) == "400 force");
  CHECK(kind_of({{"action", "on"}, {"timeout_s", 1}}, TaskKind::power) == "422 timeout_s");
  CHECK(kind_of({{"device", "pxe"}, {"persistent", "yes"}}, TaskKind::boot) == "400 persistent");
  CHECK(kind_of({{"device", "floppy"}}, TaskKind::boot) == "422 device");
  CHECK(kind_of({{"on", "true"}}, TaskKind::identify) == "400 on");
  CHECK(kind_of({{"image", ""}}, TaskKind::reprovision) == "422 image");
  // The admin password is kept apart from the parameters the API shows.
  const auto p = parse_task_parameters(TaskKind::reprovision, {{"admin_password", "s3cret!"}});
  CHECK_FALSE(p.parameters.contains("admin_password"));
  CHECK(p.secrets["admin_password"] == "s3cret!");
}

TEST_CASE("a node's tasks are claimed one at a time, oldest first", "[tasks][db]") {
  Fixture f;
  f.enroll("gpu-01");
  f.enroll("gpu-02");
  const Task a1 = f.create("gpu-01", {{"action", "off"}});
  const Task a2 = f.create("gpu-01", {{"action", "on"}});
  const Task b1 = f.create("gpu-02");

  const auto claimed = f.tasks.claim("one", 10, 60s);
  CHECK(ids_of(claimed) == std::set<std::string>{a1.id, b1.id});
  // Nothing else is claimable while a1 runs, not even for another instance.
  CHECK(f.tasks.claim("two", 10, 60s).empty());
  REQUIRE(f.tasks.finish(a1.id, "one", TaskState::succeeded, json::object(), std::nullopt, {}));
  const auto next = f.tasks.claim("two", 10, 60s);
  REQUIRE(next.size() == 1);
  CHECK(next[0].task.id == a2.id);
  CHECK(next[0].task.state == TaskState::running);
  CHECK(next[0].task.attempts == 1);
  CHECK(next[0].target.endpoint.to_string() == "https://127.0.0.2:1");
  REQUIRE(next[0].target.credentials);
  CHECK(next[0].target.credentials->password == "p");
  CHECK(next[0].limiter_key == "bmc:" + *next[0].task.node_id);
}

TEST_CASE("a password rotation's hold keeps polls and other tasks off its BMC until it ends",
          "[tasks][db][credentials]") {
  Fixture f;
  db::PollStore polls{f.db, f.box};
  const std::vector<std::string> drivers{"redfish"};
  const std::string bmc = f.enroll("gpu-01");
  const std::string blade = f.enroll("gpu-01-b");
  const std::string other = f.enroll("gpu-02");
  // gpu-01-b made a System read through gpu-01's BMC.
  f.query("UPDATE nodes SET parent_id = '" + bmc + "' WHERE id = '" + blade + "'");
  // A status poll of gpu-01, claimed before the rotation and still running.
  f.query("UPDATE poll_schedule SET next_due = now() + interval '1 hour'");
  f.query("UPDATE poll_schedule SET next_due = now() WHERE node_id = '" + bmc +
          "' AND kind = 'status'");
  REQUIRE(polls.claim("poller", drivers, 10, 60s).size() == 1);

  const Task rotation = f.create("gpu-01", json::object(), TaskKind::credentials);
  REQUIRE(ids_of(f.tasks.claim("one", 10, 60s)) == std::set<std::string>{rotation.id});
  CHECK(f.tasks.hold_bmc(rotation.id, "two", bmc, 300s) == std::nullopt);  // not its lease
  CHECK(f.tasks.hold_bmc(rotation.id, "one", bmc, 300s) == 1);             // the running poll

  // Nothing new is claimed for the node or the System behind its BMC; other nodes go on.
  f.query("UPDATE poll_schedule SET next_due = now()");
  const Task blade_power = f.create("gpu-01-b");
  const Task other_power = f.create("gpu-02");
  const auto polled = polls.claim("poller", drivers, 20, 60s);
  CHECK_FALSE(polled.empty());
  for (const auto& job : polled) CHECK(job.target.node_id == other);
  CHECK(ids_of(f.tasks.claim("one", 10, 60s)) == std::set<std::string>{other_power.id});

  // The poll that was running ends: nothing else is talking to the BMC.
  f.query("UPDATE poll_schedule SET lease_owner = NULL, lease_expires = NULL WHERE node_id = '" +
          bmc + "'");
  CHECK(f.tasks.hold_bmc(rotation.id, "one", bmc, 300s) == 0);

  // The rotation ends, and its hold with it.
  REQUIRE(
      f.tasks.finish(rotation.id, "one", TaskState::succeeded, json::object(), std::nullopt, {}));
  CHECK(ids_of(f.tasks.claim("one", 10, 60s)) == std::set<std::string>{blade_power.id});
  std::set<std::string> polled_nodes;  // a System behind a BMC is polled through it
  for (const auto& job : polls.claim("poller", drivers, 20, 60s))
    polled_nodes.insert(job.target.node_id);
  CHECK(polled_nodes == std::set<std::string>{bmc});
}

TEST_CASE("instances claiming at once never take the same task", "[tasks][db]") {
  Fixture f;
  std::set<std::string> created;
  for (int i = 0; i < 40; ++i) {
    const std::string name = "node-" + std::to_string(i);
    f.enroll(name);
    created.insert(f.create(name).id);
  }
  std::vector<std::vector<db::TaskJob>> got(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      for (int round = 0; round < 10; ++round) {
        auto jobs = f.tasks.claim("owner-" + std::to_string(i), 3, 60s);
        for (auto& j : jobs) got[i].push_back(std::move(j));
      }
    });
  for (auto& t : threads) t.join();
  std::multiset<std::string> all;
  for (const auto& jobs : got)
    for (const auto& j : jobs) all.insert(j.task.id);
  CHECK(all.size() == created.size());
  CHECK(std::set<std::string>(all.begin(), all.end()) == created);
  CHECK(f.query("SELECT count(*) FROM tasks WHERE attempts <> 1")[0][0].as<int>() == 0);
}

TEST_CASE("a task whose lease expires is taken over and its old worker can no longer write",
          "[tasks][db]") {
  Fixture f;
  f.enroll("gpu-01");
  const Task t = f.create("gpu-01");
  REQUIRE(f.tasks.claim("dead", 10, 1s).size() == 1);
  TaskStep step;
  step.name = "send";
  step.state = StepState::sending;
  REQUIRE(f.tasks.save_steps(t.id, "dead", std::vector<TaskStep>{step}));
  CHECK(f.tasks.claim("alive", 10, 60s).empty());  // the lease still holds
  std::this_thread::sleep_for(1500ms);
  const auto taken = f.tasks.claim("alive", 10, 60s);
  REQUIRE(taken.size() == 1);
  CHECK(taken[0].task.attempts == 2);
  REQUIRE(taken[0].task.steps.size() == 1);
  CHECK(taken[0].task.steps[0].state == StepState::sending);  // resumed where it was
  CHECK_FALSE(f.tasks.renew(t.id, "dead", 60s).owned);
  CHECK_FALSE(f.tasks.save_steps(t.id, "dead", {}));
  CHECK_FALSE(f.tasks.finish(t.id, "dead", TaskState::failed, nullptr, "x", {}));
  CHECK(f.tasks.renew(t.id, "alive", 60s).owned);

  // Handing it back (a stopping instance) makes it claimable at once, steps kept.
  f.tasks.release(t.id, "alive", taken[0].task.steps);
  const auto again = f.tasks.claim("third", 10, 60s);
  REQUIRE(again.size() == 1);
  CHECK(again[0].task.attempts == 3);
}

TEST_CASE("a queued task is cancelled at once and never runs", "[tasks][db]") {
  Fixture f;
  f.enroll("gpu-01");
  const Task queued = f.create("gpu-01");
  const Task cancelled = f.tasks.request_cancel(queued.id, "alice");
  CHECK(cancelled.state == TaskState::cancelled);
  CHECK(cancelled.cancelled_by == "alice");
  CHECK(cancelled.finished_at);
  // It never runs, and it no longer holds up the node's next task.
  const Task next = f.create("gpu-01");
  const auto claimed = f.tasks.claim("one", 10, 60s);
  REQUIRE(claimed.size() == 1);
  CHECK(claimed[0].task.id == next.id);
}

TEST_CASE("a running task learns of its cancellation when it renews its lease", "[tasks][db]") {
  Fixture f;
  f.enroll("gpu-01");
  const Task t = f.create("gpu-01");
  REQUIRE(f.tasks.claim("one", 10, 60s).size() == 1);
  CHECK_FALSE(f.tasks.renew(t.id, "one", 60s).cancel_requested);
  const Task asked = f.tasks.request_cancel(t.id, "bob");
  CHECK(asked.state == TaskState::running);
  CHECK(asked.cancel_requested);
  CHECK(f.tasks.renew(t.id, "one", 60s).cancel_requested);
  REQUIRE(f.tasks.finish(t.id, "one", TaskState::cancelled, nullptr, "cancelled on request", {}));
  CHECK_THROWS_MATCHES(
      f.tasks.request_cancel(t.id, "bob"), Error,
      Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::conflict; }));
  CHECK_THROWS_MATCHES(
      f.tasks.request_cancel("00000000-0000-4000-8000-000000000000", "bob"), Error,
      Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::not_found; }));
}

TEST_CASE("an Idempotency-Key returns the first request's tasks and refuses another request",
          "[tasks][db]") {
  Fixture f;
  f.enroll("gpu-01");
  db::NewTask t;
  t.node = "gpu-01";
  t.parameters = parse_task_parameters(TaskKind::power, {{"action", "off"}});
  const db::NewTask one[] = {t};
  const db::IdempotencyKey key{"token-1", "retry-me", "hash-a"};
  const auto first = f.tasks.create(one, key);
  CHECK_FALSE(first.replayed);
  const auto again = f.tasks.create(one, key);
  CHECK(again.replayed);
  REQUIRE(again.tasks.size() == 1);
  CHECK(again.tasks[0].id == first.tasks[0].id);
  CHECK(f.query("SELECT count(*) FROM tasks")[0][0].as<int>() == 1);

  const db::IdempotencyKey other_body{"token-1", "retry-me", "hash-b"};
  CHECK_THROWS_MATCHES(
      f.tasks.create(one, other_body), Error,
      Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::unprocessable; }));
  // The key is the token's own: another token's same key is a new request.
  const auto other_token = f.tasks.create(one, db::IdempotencyKey{"token-2", "retry-me", "hash-a"});
  CHECK_FALSE(other_token.replayed);
  CHECK(other_token.tasks[0].id != first.tasks[0].id);

  // After 24 hours the key may be used afresh.
  f.query("UPDATE idempotency_keys SET created_at = now() - interval '25 hours'");
  const auto later = f.tasks.create(one, key);
  CHECK_FALSE(later.replayed);
}

TEST_CASE("write-only parameters are sealed, opened for the worker and wiped at the end",
          "[tasks][db]") {
  Fixture f;
  // A cloud instance (reprovisioned by its provider), as the cloud sync would have recorded it.
  f.query(
      "INSERT INTO nodes (name, source, driver, provider_id, lifecycle) "
      "VALUES ('vm-01', 'cloud', 'bcc', 'i-1', 'deployed')");
  const Task t = f.create("vm-01", {{"image", "ubuntu-24.04"}, {"admin_password", "s3cret!"}},
                          TaskKind::reprovision);
  CHECK(f.query("SELECT lifecycle FROM nodes WHERE name = 'vm-01'")[0][0].as<std::string>() ==
        "provisioning");
  CHECK_FALSE(to_json(t).dump().find("s3cret!") != std::string::npos);
  CHECK(f.query("SELECT count(*) FROM tasks WHERE sealed_secrets IS NOT NULL AND "
                "position('s3cret!' in encode(sealed_secrets, 'escape')) = 0")[0][0]
            .as<int>() == 1);
  const auto jobs = f.tasks.claim("one", 10, 60s);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].secrets["admin_password"] == "s3cret!");
  REQUIRE(f.tasks.finish(t.id, "one", TaskState::failed, nullptr, "provision_failed: test", {}));
  CHECK(f.query("SELECT count(*) FROM tasks WHERE sealed_secrets IS NOT NULL")[0][0].as<int>() ==
        0);
}

TEST_CASE("a finished task leaves an event on its node and an audit entry", "[tasks][db]") {
  Fixture f;
  const std::string node = f.enroll("gpu-01");
  const Task t = f.create("gpu-01", {{"action", "off"}});
  REQUIRE(f.tasks.claim("one", 10, 60s).size() == 1);
  TaskStep send;
  send.name = "send";
  send.state = StepState::succeeded;
  send.in_doubt = "resolved by reading the node";
  REQUIRE(f.tasks.finish(t.id, "one", TaskState::failed, nullptr, "the node did not become off",
                         std::vector<TaskStep>{send}));
  const auto events = f.query(
      "SELECT kind, severity, message, details->>'task_id' FROM events "
      "WHERE node_id = '" +
      node + "'");
  REQUIRE(events.size() == 1);
  CHECK(events[0][0].as<std::string>() == "task");
  CHECK(events[0][1].as<std::string>() == "warning");
  CHECK(events[0][2].as<std::string>().find("the node did not become off") != std::string::npos);
  CHECK(events[0][3].as<std::string>() == t.id);
  const auto audit = f.query(
      "SELECT actor, action, outcome, details::text FROM audit_log "
      "WHERE target_id = '" +
      node + "' AND action = 'task.power'");
  REQUIRE(audit.size() == 1);
  CHECK(audit[0][0].as<std::string>() == "tester");
  CHECK(audit[0][1].as<std::string>() == "task.power");
  CHECK(audit[0][2].as<std::string>() == "failed");
  const json details = json::parse(audit[0][3].as<std::string>());
  CHECK(details["in_doubt"][0]["resolution"] == "resolved by reading the node");
  // The step that ended with the task is an entry of its own, before the task's.
  const auto steps = f.query(
      "SELECT actor, outcome, details->>'step', details->>'task_id', seq < (SELECT seq FROM "
      "audit_log WHERE action = 'task.power') FROM audit_log WHERE target_id = '" +
      node + "' AND action = 'task.step'");
  REQUIRE(steps.size() == 1);
  CHECK(steps[0][0].as<std::string>() == "tester");
  CHECK(steps[0][1].as<std::string>() == "succeeded");
  CHECK(steps[0][2].as<std::string>() == "send");
  CHECK(steps[0][3].as<std::string>() == t.id);
  CHECK(steps[0][4].as<bool>());
  const Task ended = f.tasks.get(t.id);
  CHECK(ended.state == TaskState::failed);
  CHECK(ended.finished_at);
  CHECK(ended.steps.size() == 1);
}

TEST_CASE("each task step sent or ended is audited once, not each time the steps are saved",
          "[tasks][db][audit]") {
  Fixture f;
  const std::string node = f.enroll("gpu-02");
  const Task t = f.create("gpu-02", {{"action", "cycle"}});
  REQUIRE(f.tasks.claim("one", 10, 60s).size() == 1);
  TaskStep check{"check", StepState::running, {}, {}, "reading the power state", {}, nullptr};
  TaskStep send{"send", StepState::pending, {}, {}, "", {}, nullptr};
  REQUIRE(f.tasks.save_steps(t.id, "one", std::vector<TaskStep>{check, send}));
  check.state = StepState::succeeded;
  send.state = StepState::sending;
  REQUIRE(f.tasks.save_steps(t.id, "one", std::vector<TaskStep>{check, send}));
  send.detail = "ResetType=PowerCycle";  // the same states again: nothing new to audit
  REQUIRE(f.tasks.save_steps(t.id, "one", std::vector<TaskStep>{check, send}));
  const auto rows = f.query(
      "SELECT details->>'step', outcome FROM audit_log WHERE action = 'task.step' AND target_id = "
      "'" +
      node + "' ORDER BY seq");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0][0].as<std::string>() == "check");
  CHECK(rows[0][1].as<std::string>() == "succeeded");
  CHECK(rows[1][0].as<std::string>() == "send");
  CHECK(rows[1][1].as<std::string>() == "sending");
}

}  // namespace task_store_test

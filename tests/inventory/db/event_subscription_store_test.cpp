// The event subscriptions' rows against a real PostgreSQL: one per enrolled Redfish BMC, leased
// to one subscriber at a time; a pushed document recorded once whoever recorded its entries
// first (the BMC's push or a poll of its log), its status changes as health, only under a
// subscription's secret; and a retired node's credentials kept until its subscription is off
// the BMC.
#include "inventory/db/event_subscription_store.hpp"

#include <catch2/catch.hpp>

#include "inventory/error.hpp"
#include "tests/inventory/db/store_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace event_subscription_store_test {

using namespace ironhold;
using namespace std::chrono_literals;
using ironhold::test::StoreFixture;
using nlohmann::json;

namespace {

struct Fixture : StoreFixture {
  db::EventSubscriptionStore subscriptions{db, box};

  std::string sql(const std::string& statement) { return database.execute(statement); }
  long long count(const std::string& query) { return std::stoll(database.execute(query)); }

  // Claims `node`'s row and records a subscription made under `secret`.
  void subscribe(const std::string& node, const std::string& secret) {
    sql("UPDATE event_subscriptions SET next_check = now() - interval '1 second'");
    const auto jobs = subscriptions.claim("me", 100, 60s);
    REQUIRE_FALSE(jobs.empty());
    subscriptions.expect_secret(node, secret);
    subscriptions.subscribed(node, "me", "/redfish/v1/EventService/Subscriptions/7",
                             "http://127.0.0.1:8080/api/v1/redfish-events/", 600s);
    for (const auto& job : jobs)
      if (job.target.node_id != node) subscriptions.checked(job.target.node_id, "me", 600s);
  }
};

events::PushedEvent sel_entry(const std::string& path, Severity severity, const std::string& text) {
  events::PushedEvent e;
  e.event_type = "Alert";
  e.severity = severity;
  e.message = text;
  e.log_entry = path;
  e.origin = "/redfish/v1/Systems/1";
  e.system_id = "1";
  return e;
}

}  // namespace

TEST_CASE("every enrolled Redfish BMC has a subscription, leased to one subscriber at a time",
          "[db][events]") {
  Fixture f;
  const std::string a = f.enroll("bmc-a");
  CHECK(f.sql("SELECT state FROM event_subscriptions WHERE node_id = '" + a + "'") == "pending");
  const auto jobs = f.subscriptions.claim("one", 10, 60s);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].target.node_id == a);
  CHECK(jobs[0].driver == "redfish");
  REQUIRE(jobs[0].target.credentials);
  CHECK(jobs[0].target.credentials->password == "p");
  CHECK_FALSE(jobs[0].retired);
  CHECK(f.subscriptions.claim("two", 10, 60s).empty());  // leased

  // A failure keeps it away for its backoff; an IPMI node has none at all.
  f.subscriptions.failed(a, "one", "failing", "unreachable: connection refused", 300s);
  CHECK(f.subscriptions.claim("two", 10, 60s).empty());
  const auto view = f.subscriptions.find(a);
  REQUIRE(view);
  CHECK(view->state == "failing");
  CHECK(view->failures == 1);
  CHECK(view->last_error == std::optional<std::string>("unreachable: connection refused"));
  f.sql("UPDATE nodes SET driver = 'ipmi' WHERE id = '" + a + "'");
  CHECK(f.count("SELECT count(*) FROM event_subscriptions") == 0);
}

TEST_CASE("a pushed document is recorded once, whoever saw its entries first", "[db][events]") {
  Fixture f;
  const std::string a = f.enroll("bmc-a");
  f.subscribe(a, "secret-a");
  CHECK(f.sql("SELECT state FROM event_subscriptions WHERE node_id = '" + a + "'") == "active");
  // A poll of the log recorded entry 1 already (as kind "log": its service is not a SEL).
  f.sql("INSERT INTO events (node_id, node_name, kind, severity, message, source_id) VALUES ('" +
        a +
        "', 'bmc-a', 'log', 'warning', 'Fan 1 low', '/redfish/v1/Systems/1/LogServices/Log/"
        "Entries/1')");
  f.sql("UPDATE poll_schedule SET next_due = now() + interval '1 hour' WHERE node_id = '" + a +
        "'");

  events::PushedEvents doc;
  doc.context = "ironhold " + a;
  doc.events = {
      sel_entry("/redfish/v1/Systems/1/LogServices/Log/Entries/1", Severity::warning, "Fan 1 low"),
      sel_entry("/redfish/v1/Systems/1/LogServices/Log/Entries/2", Severity::critical,
                "PSU 2 lost input")};
  events::PushedEvent health;
  health.event_type = "StatusChange";
  health.severity = Severity::critical;
  health.message_id = "ResourceEvent.1.0.ResourceStatusChangedCritical";
  health.health = Health::critical;
  health.origin = "/redfish/v1/Systems/1";
  doc.events.push_back(health);
  const auto recorded = f.subscriptions.record_pushed("secret-a", doc);
  CHECK(recorded.node_id == a);
  CHECK(recorded.events == 2);  // entry 2 and the health change
  CHECK(recorded.duplicates == 1);
  CHECK(recorded.health_changes == 1);
  // Again (a BMC repeating a delivery whose answer it lost): nothing new.
  const auto again = f.subscriptions.record_pushed("secret-a", doc);
  CHECK(again.events == 0);
  CHECK(again.duplicates == 2);

  CHECK(f.count("SELECT count(*) FROM events WHERE node_id = '" + a +
                "' AND source_id LIKE '%/Entries/%'") == 2);
  CHECK(f.sql("SELECT details ->> 'pushed' FROM events WHERE source_id LIKE '%/Entries/2'") ==
        "true");
  CHECK(f.sql("SELECT health FROM nodes WHERE id = '" + a + "'") == "critical");
  CHECK(f.count("SELECT count(*) FROM events WHERE node_id = '" + a +
                "' AND kind = 'health_change'") == 1);
  // The status poll comes forward to confirm; the sensors poll keeps its time.
  CHECK(f.count("SELECT count(*) FROM poll_schedule WHERE node_id = '" + a +
                "' AND kind = 'status' AND next_due <= now()") == 1);
  CHECK(f.count("SELECT count(*) FROM poll_schedule WHERE node_id = '" + a +
                "' AND kind = 'sensors' AND next_due > now()") == 1);
  CHECK(f.count("SELECT events_received FROM event_subscriptions WHERE node_id = '" + a + "'") ==
        6);

  // Another secret is nobody's; one being subscribed right now is taken already.
  CHECK_THROWS_AS(f.subscriptions.record_pushed("secret-b", doc), Error);
  f.subscriptions.expect_secret(a, "secret-next");
  CHECK(f.subscriptions.record_pushed("secret-next", doc).duplicates == 2);
}

TEST_CASE("a retired node's credentials stay until its subscription is off the BMC",
          "[db][events]") {
  Fixture f;
  const std::string a = f.enroll("bmc-a");
  const std::string b = f.enroll("bmc-b");  // never subscribed
  f.subscribe(a, "secret-a");
  f.nodes.retire(a);
  f.nodes.retire(b);
  CHECK(f.sql("SELECT state FROM event_subscriptions WHERE node_id = '" + a + "'") == "removing");
  CHECK(f.count("SELECT count(*) FROM node_credentials WHERE node_id = '" + a + "'") == 1);
  CHECK(f.count("SELECT count(*) FROM event_subscriptions WHERE node_id = '" + b + "'") == 0);
  CHECK(f.count("SELECT count(*) FROM node_credentials WHERE node_id = '" + b + "'") == 0);
  // What the BMC still posts is refused: the node is gone.
  CHECK_THROWS_AS(f.subscriptions.record_pushed("secret-a", events::PushedEvents{}), Error);

  const auto jobs = f.subscriptions.claim("me", 10, 60s);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].retired);
  CHECK(jobs[0].bmc_path == std::optional<std::string>("/redfish/v1/EventService/Subscriptions/7"));
  REQUIRE(jobs[0].target.credentials);  // what the removal logs in with
  f.subscriptions.removed(a, "me");
  CHECK(f.count("SELECT count(*) FROM event_subscriptions") == 0);
  CHECK(f.count("SELECT count(*) FROM node_credentials") == 0);
}

}  // namespace event_subscription_store_test

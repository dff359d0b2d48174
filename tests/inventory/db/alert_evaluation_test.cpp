// Alert evaluation against a real PostgreSQL: problems fire once and update instead of piling
// up, resolve when they end, escalate, flap (and are then not notified), are kept quiet by
// maintenance and silences, reach only the receivers of their project and severity, sensors
// over our thresholds hold until they fall past the hysteresis, and BMC log entries and failed
// tasks are alerts of their own the moment they are recorded.
#include "inventory/db/alert_evaluation.hpp"

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "inventory/db/alert_store.hpp"
#include "tests/inventory/db/store_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace alert_evaluation_test {

using namespace ironhold;
using ironhold::test::StoreFixture;

namespace {

struct AlertFixture : StoreFixture {
  db::AlertStore alerts{db, box};
  db::AlertPolicy policy;

  void sql(const std::string& statement) { database.execute(statement); }
  long long count(const std::string& query) { return std::stoll(database.execute(query)); }
  db::AlertPass pass() { return db::evaluate_alerts(db, policy); }
  std::vector<db::Alert> open(const std::string& source) {
    db::AlertQuery q;
    q.states = {"firing", "acknowledged"};
    q.sources = {source};
    return alerts.list(q);
  }
  long long outbox(const std::string& status) {
    return count("SELECT count(*) FROM alert_outbox WHERE status = '" + status + "'");
  }
  void receiver(const std::string& name, const std::string& min_severity = "warning",
                std::optional<std::string> project = std::nullopt) {
    alerts.add_receiver({name, "http://127.0.0.1:9/" + name, "a-receiver-secret-" + name,
                         min_severity, std::move(project), "test"});
  }
};

}  // namespace

TEST_CASE("a node's health fires one alert, updated while it lasts and resolved when it ends",
          "[db][alerts]") {
  AlertFixture f;
  const std::string node = f.enroll("gpu-01");
  f.receiver("pager");
  f.sql("UPDATE nodes SET health = 'warning' WHERE name = 'gpu-01'");
  auto p = f.pass();
  CHECK(p.ran);
  CHECK(p.fired == 1);
  REQUIRE(f.open("health").size() == 1);
  CHECK(f.open("health")[0].severity == "warning");
  CHECK(f.outbox("firing") == 1);

  // Seen again: the same alert, nothing new to say.
  f.pass();
  f.pass();
  CHECK(f.open("health").size() == 1);
  CHECK(f.outbox("firing") == 1);

  // Worse: the same alert, escalated, and that is news.
  f.sql("UPDATE nodes SET health = 'critical' WHERE name = 'gpu-01'");
  f.pass();
  REQUIRE(f.open("health").size() == 1);
  CHECK(f.open("health")[0].severity == "critical");
  CHECK(f.outbox("firing") == 2);

  const auto acked = f.alerts.acknowledge(f.open("health")[0].id, "ops");
  CHECK(acked.state == "acknowledged");
  CHECK(acked.acknowledged_by == std::optional<std::string>("ops"));

  f.sql("UPDATE nodes SET health = 'ok' WHERE name = 'gpu-01'");
  p = f.pass();
  CHECK(p.resolved == 1);
  CHECK(f.open("health").empty());
  CHECK(f.outbox("resolved") == 1);
  CHECK_THROWS_AS(f.alerts.acknowledge(acked.id, "ops"), Error);
  CHECK(f.count("SELECT count(*) FROM alerts") == 1);
  (void)node;
}

TEST_CASE("an alert that keeps coming back is flapping and is not notified until it settles",
          "[db][alerts]") {
  AlertFixture f;
  f.enroll("gpu-02");
  f.receiver("pager");
  for (int i = 0; i < 4; ++i) {
    f.sql("UPDATE nodes SET health = 'warning' WHERE name = 'gpu-02'");
    f.pass();
    f.sql("UPDATE nodes SET health = 'ok' WHERE name = 'gpu-02'");
    f.pass();
  }
  // One row for the fingerprint, reopened each time; the third return made it flapping.
  CHECK(f.count("SELECT count(*) FROM alerts") == 1);
  CHECK(f.count("SELECT flaps FROM alerts") == 3);
  CHECK(f.database.execute("SELECT flapping FROM alerts") == "t");
  // Notified: the first firing and resolution, the next two of each; not the flapping ones.
  CHECK(f.outbox("firing") == 3);
  CHECK(f.outbox("resolved") == 3);

  // Settled (as if the window had passed): calm again.
  f.sql("UPDATE alerts SET updated_at = now() - interval '1 hour'");
  f.pass();
  CHECK(f.database.execute("SELECT flapping FROM alerts") == "f");
}

TEST_CASE("maintenance and silences keep alerts quiet, receivers get their project and severity",
          "[db][alerts]") {
  AlertFixture f;
  f.database.execute("INSERT INTO projects (name) VALUES ('lab')");
  const std::string quiet = f.enroll("gpu-maint");
  const std::string silenced = f.enroll("gpu-silenced");
  f.enroll("gpu-loud");
  f.sql("UPDATE nodes SET project = 'lab' WHERE name = 'gpu-loud'");
  f.receiver("everything");
  f.receiver("lab-only", "warning", "lab");
  f.receiver("critical-only", "critical");
  f.sql("UPDATE nodes SET maintenance = true WHERE name = 'gpu-maint'");
  f.alerts.add_silence({"default",
                        {{"names", "gpu-silenced"}},
                        "swap",
                        std::nullopt,
                        "2099-01-01T00:00:00Z",
                        "test"});
  f.sql("UPDATE nodes SET health = 'warning'");
  const auto p = f.pass();
  CHECK(p.fired == 3);
  CHECK(f.open("health").size() == 3);  // they fire; only the notifications are held back
  // gpu-loud alone is notified: to "everything" and to "lab-only", not to "critical-only".
  CHECK(f.count("SELECT count(*) FROM alert_outbox") == 2);
  CHECK(f.count("SELECT count(*) FROM alert_outbox o JOIN alert_receivers r ON r.id = "
                "o.receiver_id WHERE r.name = 'critical-only'") == 0);
  CHECK(f.count("SELECT count(DISTINCT alert_id) FROM alert_outbox") == 1);
  // Nothing is left pending for later: a silence does not queue notifications.
  CHECK(f.count("SELECT count(*) FROM alerts WHERE notify_pending IS NOT NULL") == 0);
  (void)quiet;
  (void)silenced;
}

TEST_CASE("a sensor over our threshold holds its alert until it falls below it by the hysteresis",
          "[db][alerts]") {
  AlertFixture f;
  const std::string node = f.enroll("gpu-hot");
  auto reading = [&](double value) {
    f.sql(
        "INSERT INTO sensor_latest (node_id, sensor, kind, value, unit, status, read_at) "
        "VALUES ('" +
        node + "', 'GPU0 Temp', 'gpu_temperature', " + std::to_string(value) +
        ", 'C', 'ok', now()) ON CONFLICT (node_id, sensor) DO UPDATE SET value = "
        "EXCLUDED.value");
    f.pass();
    const auto open = f.open("sensor_rule");
    return open.empty() ? std::string("none") : open[0].severity;
  };
  // The default rule: warning at 85, critical at 95, hysteresis 5.
  CHECK(reading(80) == "none");
  CHECK(reading(86) == "warning");
  CHECK(reading(96) == "critical");
  CHECK(reading(92) == "critical");  // still above 95 - 5
  CHECK(reading(88) == "warning");
  CHECK(reading(82) == "warning");  // above 85 - 5
  CHECK(reading(79) == "none");
  // A model's own rule wins over the kind's.
  f.sql("UPDATE nodes SET model = 'HGX-B' WHERE id = '" + node + "'");
  f.sql(
      "INSERT INTO alert_sensor_rules (kind, model, warning, critical, hysteresis) "
      "VALUES ('gpu_temperature', 'HGX-B', 70, 75, 2)");
  CHECK(reading(76) == "critical");
  // Below every level of the kind's own rule (80 less 5), but over the model's: the pass must
  // not leave such readings out before it knows the node's model.
  CHECK(reading(72) == "warning");
  CHECK(reading(69) == "warning");  // above 70 - 2
  CHECK(reading(67) == "none");
}

TEST_CASE("BMC log entries and failed tasks are alerts the moment they are recorded",
          "[db][alerts]") {
  AlertFixture f;
  const std::string node = f.enroll("gpu-log");
  // Its log was read before (what it held then raises nothing: poll_store_test).
  f.sql("INSERT INTO node_log_baselines (node_id) VALUES ('" + node + "')");
  auto sel = [&](const std::string& source_id, const std::string& severity) {
    f.sql("INSERT INTO events (node_id, node_name, kind, severity, message, source_id) VALUES ('" +
          node + "', 'gpu-log', 'sel', '" + severity + "', 'PSU 2 lost input', '" + source_id +
          "')");
  };
  sel("1", "warning");
  REQUIRE(f.open("hardware_log").size() == 1);
  sel("2", "critical");  // the same entry again, worse: the same alert, escalated
  REQUIRE(f.open("hardware_log").size() == 1);
  CHECK(f.open("hardware_log")[0].severity == "critical");
  CHECK(f.open("hardware_log")[0].occurrences == 2);
  sel("3", "info");  // informational entries are no alert
  CHECK(f.count("SELECT count(*) FROM alerts") == 1);

  f.sql("INSERT INTO events (node_id, node_name, kind, severity, message, details) VALUES ('" +
        node +
        "', 'gpu-log', 'task', 'warning', 'power task failed', "
        "'{\"kind\": \"power\", \"state\": \"failed\"}')");
  REQUIRE(f.open("task_failed").size() == 1);
  CHECK(f.open("task_failed")[0].project == std::optional<std::string>("default"));

  // They end by age.
  f.sql("UPDATE alerts SET last_seen = now() - interval '2 days'");
  f.pass();
  CHECK(f.open("hardware_log").empty());
  CHECK(f.open("task_failed").empty());
}

TEST_CASE("one instance evaluates at a time", "[db][alerts]") {
  AlertFixture f;
  pqxx::connection holder(f.database.url());
  pqxx::work tx(holder);
  tx.exec("SELECT pg_advisory_xact_lock(1711687)");  // the evaluation's lock (0x1A1E47)
  CHECK_FALSE(f.pass().ran);
  tx.commit();
  CHECK(f.pass().ran);
}

}  // namespace alert_evaluation_test

// PXE provisioning sessions in a real PostgreSQL: opened from the node's inspected NIC MACs (or
// one given), found by any of them, a new one-time token per script, call-backs that end the
// session once, expiry, and closing.
#include "inventory/db/provisioning_store.hpp"

#include <catch2/catch.hpp>

#include "inventory/db/task_store.hpp"
#include "inventory/error.hpp"
#include "tests/inventory/db/store_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace provisioning_store_test {

using namespace ironhold;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct Fixture : ironhold::test::StoreFixture {
  db::ProvisioningStore sessions{db};

  // A node ready to be reprovisioned.
  std::string enroll_available(const std::string& name) {
    const std::string id = enroll(name);
    database.execute("UPDATE nodes SET lifecycle = 'available' WHERE id = '" + id + "'");
    return id;
  }

  // A NIC as the poller records it (BMCs write MACs in either case).
  void add_nic(const std::string& node, const std::string& slot, const std::string& mac) {
    database.execute("INSERT INTO components (node_id, kind, slot, details) VALUES ('" + node +
                     "', 'nic', '" + slot + "', '{\"macs\": [\"" + mac + "\"]}')");
  }

  std::string reprovision(const std::string& node) {
    return create(node, {{"image", "http://images.example/ubuntu"}}, TaskKind::reprovision).id;
  }

  db::CallbackReport report(bool ok, const std::string& message) {
    db::CallbackReport r;
    r.succeeded = ok;
    r.message = message;
    r.report = {{"status", ok ? "succeeded" : "failed"}};
    r.from = "127.0.0.9";
    return r;
  }
};

}  // namespace

TEST_CASE("a session is found by any of the node's MACs and each script gets a new token",
          "[db][provisioning]") {
  Fixture f;
  const std::string node = f.enroll_available("gpu-1");
  f.add_nic(node, "Eth0", "52:54:00:AB:CD:01");
  f.add_nic(node, "Eth1", "52-54-00-ab-cd-02");
  const std::string task = f.reprovision(node);

  const db::ProvisioningSession opened =
      f.sessions.open(task, node, "http://images.example/ubuntu", std::nullopt, 600s);
  CHECK(opened.macs == std::vector<std::string>{"52:54:00:ab:cd:01", "52:54:00:ab:cd:02"});
  CHECK(opened.state == "waiting");
  CHECK_FALSE(opened.expired);
  // Opening again (a resumed task) returns the same session.
  CHECK(f.sessions.open(task, node, "ignored", std::nullopt, 1s).expires_at == opened.expires_at);

  CHECK_FALSE(f.sessions.grant_script("52:54:00:ab:cd:99", "127.0.0.9"));
  const auto first = f.sessions.grant_script("52:54:00:ab:cd:02", "127.0.0.9");
  REQUIRE(first);
  CHECK(first->node_name == "gpu-1");
  CHECK(first->task_id == task);
  CHECK(first->token.size() == 64);
  const auto second = f.sessions.grant_script("52:54:00:ab:cd:01", "127.0.0.9");
  REQUIRE(second);
  CHECK(second->token != first->token);
  const auto seen = f.sessions.find(task);
  REQUIRE(seen);
  CHECK(seen->state == "booted");
  CHECK(seen->script_fetches == 2);
  CHECK(seen->fetched_by == "52:54:00:ab:cd:01 from 127.0.0.9");

  // Only the newest token counts, and only once.
  CHECK_THROWS_MATCHES(
      f.sessions.complete(first->token, f.report(true, "done")), Error,
      Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::forbidden; }));
  const auto done = f.sessions.complete(second->token, f.report(true, "installed"));
  CHECK(done.state == "succeeded");
  CHECK(done.message == "installed");
  CHECK(done.report["status"] == "succeeded");
  CHECK_THROWS_AS(f.sessions.complete(second->token, f.report(true, "again")), Error);
  // The session is over: the MAC gets no script now.
  CHECK_FALSE(f.sessions.grant_script("52:54:00:ab:cd:01", "127.0.0.9"));
  // The call-back is in the audit trail, without the token.
  CHECK(f.database.execute(
            "SELECT count(*) FROM audit_log WHERE action = 'provisioning.callback'") == "1");
  const std::string details = f.database.execute(
      "SELECT details::text FROM audit_log WHERE action = 'provisioning.callback'");
  CHECK(details.find("installed") != std::string::npos);
  CHECK(details.find(second->token) == std::string::npos);
}

TEST_CASE("a node without known MACs needs one named, expired and closed sessions serve nothing",
          "[db][provisioning]") {
  Fixture f;
  const std::string node = f.enroll_available("gpu-2");
  const std::string task = f.reprovision(node);
  CHECK_THROWS_MATCHES(
      f.sessions.open(task, node, "http://images.example/ubuntu", std::nullopt, 600s), Error,
      Catch::Predicate<Error>([](const Error& e) {
        return e.kind() == ErrorKind::unprocessable &&
               std::string(e.what()).find("inspect the node") != std::string::npos;
      }));
  const auto opened = f.sessions.open(task, node, "http://images.example/ubuntu",
                                      std::string("52:54:00:00:00:07"), 600s);
  CHECK(opened.macs == std::vector<std::string>{"52:54:00:00:00:07"});
  const auto grant = f.sessions.grant_script("52:54:00:00:00:07", "127.0.0.9");
  REQUIRE(grant);

  // Closed by its task (timed out or cancelled): the token is refused.
  f.sessions.close(task, "timed out");
  CHECK(f.sessions.find(task)->state == "closed");
  CHECK_THROWS_AS(f.sessions.complete(grant->token, f.report(false, "late")), Error);

  // An expired session is neither served nor completed.
  f.database.execute("UPDATE nodes SET lifecycle = 'provision_failed' WHERE id = '" + node + "'");
  const std::string later = f.reprovision(node);
  f.sessions.open(later, node, "http://images.example/ubuntu", std::string("52:54:00:00:00:07"),
                  600s);
  const auto fresh = f.sessions.grant_script("52:54:00:00:00:07", "127.0.0.9");
  REQUIRE(fresh);
  f.database.execute(
      "UPDATE provisioning_sessions SET expires_at = now() - interval '1 second' "
      "WHERE task_id = '" +
      later + "'");
  CHECK(f.sessions.find(later)->expired);
  CHECK_FALSE(f.sessions.grant_script("52:54:00:00:00:07", "127.0.0.9"));
  CHECK_THROWS_AS(f.sessions.complete(fresh->token, f.report(true, "too late")), Error);
}

}  // namespace provisioning_store_test

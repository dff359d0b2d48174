// The audit routes over real HTTP: filters, keyset pages and the CSV / NDJSON exports; who may
// read them; and /api/v1/audit/verify catching tampering made directly in the database, including
// the newest entries deleted with the head rewound (caught by the anchor file).
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace audit_routes_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

void make_tokens(TestServer& server, const std::string& admin,
                 const std::vector<std::string>& names) {
  for (const auto& name : names) {
    const auto res = http_send(server.port(), "POST", "/api/v1/tokens",
                               {{"name", name}, {"role", "viewer"}}, admin);
    INFO(res.body);
    REQUIRE(res.status == 201);
  }
}

std::vector<std::string> lines_of(const std::string& body) {
  std::vector<std::string> out;
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

void tamper(TestServer& server, const std::string& sql) {
  server.database().execute(
      "ALTER TABLE audit_log DISABLE TRIGGER USER; ALTER TABLE audit_chain DISABLE TRIGGER USER; " +
      sql +
      "; ALTER TABLE audit_log ENABLE TRIGGER USER; ALTER TABLE audit_chain ENABLE TRIGGER USER");
}

}  // namespace

TEST_CASE("GET /api/v1/audit filters by actor, action, target and time, and pages",
          "[web][audit]") {
  TestServer server;
  const std::string admin = server.token("admin");
  const std::string auditor = server.token("auditor");
  make_tokens(server, admin, {"ci-one", "ci-two", "ci-three"});

  const auto all = http_get(server.port(), "/api/v1/audit?actor=admin-1", auditor);
  REQUIRE(all.status == 200);
  const json items = all.json()["items"];
  REQUIRE(items.size() == 3);
  CHECK(items[0]["target_name"] == "ci-three");  // newest first
  CHECK(items[0]["action"] == "POST /api/v1/tokens");
  CHECK(items[0]["seq"].get<long long>() > items[1]["seq"].get<long long>());

  const auto by_action =
      http_get(server.port(), "/api/v1/audit?action=" + url_encode("POST *"), auditor);
  REQUIRE(by_action.status == 200);
  CHECK(by_action.json()["items"].size() == 3);
  CHECK(http_get(server.port(), "/api/v1/audit?action=" + url_encode("DELETE *"), auditor)
            .json()["items"]
            .empty());

  const std::string target = items[1]["target_id"];
  const auto by_target = http_get(server.port(), "/api/v1/audit?target=" + target, auditor);
  REQUIRE(by_target.json()["items"].size() == 1);
  CHECK(by_target.json()["items"][0]["target_name"] == "ci-two");

  const std::string first_at = items[2]["at"];
  const auto since =
      http_get(server.port(), "/api/v1/audit?actor=admin-1&since=" + url_encode(first_at), auditor);
  CHECK(since.json()["items"].size() == 3);
  const auto until =
      http_get(server.port(), "/api/v1/audit?actor=admin-1&until=" + url_encode(first_at), auditor);
  CHECK(until.json()["items"].empty());
  CHECK(http_get(server.port(), "/api/v1/audit?since=yesterday", auditor).status == 400);
  CHECK(http_get(server.port(), "/api/v1/audit?format=xml", auditor).status == 400);

  // Pages keep the filter: two pages of the admin's three entries.
  const auto page1 = http_get(server.port(), "/api/v1/audit?actor=admin-1&limit=2", auditor).json();
  REQUIRE(page1["items"].size() == 2);
  REQUIRE(page1["next"].is_string());
  const auto page2 =
      http_get(server.port(), "/api/v1/audit?cursor=" + url_encode(page1["next"]), auditor).json();
  REQUIRE(page2["items"].size() == 1);
  CHECK(page2["items"][0]["target_name"] == "ci-one");
  CHECK(page2["next"].is_null());
}

TEST_CASE("the audit trail exports as CSV (formula-safe) and NDJSON", "[web][audit]") {
  TestServer server;
  const std::string admin = server.token("admin");
  const std::string auditor = server.token("auditor");
  make_tokens(server, admin, {"=HYPERLINK(\"http://x\")", "plain"});

  const auto csv = http_get(server.port(), "/api/v1/audit?format=csv&actor=admin-1", auditor);
  REQUIRE(csv.status == 200);
  CHECK(csv.header("content-type").find("text/csv") == 0);
  const auto rows = lines_of(csv.body);
  REQUIRE(rows.size() == 3);  // header and two entries
  CHECK(rows[0].rfind("id,seq,at,actor,actor_id,action,target_type,target_id,target_name,", 0) ==
        0);
  CHECK(csv.body.find(",=HYPERLINK") == std::string::npos);
  CHECK(csv.body.find("'=HYPERLINK") != std::string::npos);

  const auto nd = http_get(server.port(), "/api/v1/audit?format=ndjson&actor=admin-1", auditor);
  REQUIRE(nd.status == 200);
  CHECK(nd.header("content-type") == "application/x-ndjson");
  const auto lines = lines_of(nd.body);
  REQUIRE(lines.size() == 2);
  CHECK(json::parse(lines[0])["target_name"] == "plain");
  CHECK(json::parse(lines[1])["target_name"] == "=HYPERLINK(\"http://x\")");
}

TEST_CASE("only auditors and admins read the audit trail", "[web][audit]") {
  TestServer server;
  for (const char* role : {"viewer", "operator"}) {
    const std::string token = server.token(role);
    INFO(role);
    CHECK(http_get(server.port(), "/api/v1/audit", token).status == 403);
    CHECK(http_get(server.port(), "/api/v1/audit/verify", token).status == 403);
    CHECK(http_get(server.port(), "/api/v1/audit?format=csv", token).status == 403);
  }
  for (const char* role : {"auditor", "admin"}) {
    const std::string token = server.token(role);
    INFO(role);
    CHECK(http_get(server.port(), "/api/v1/audit", token).status == 200);
    CHECK(http_get(server.port(), "/api/v1/audit/verify", token).status == 200);
  }
  CHECK(http_get(server.port(), "/api/v1/audit", std::nullopt).status == 401);
}

TEST_CASE("a node's audit entries are its own", "[web][audit]") {
  TestServer server;
  const std::string admin = server.token("admin");
  for (const char* name : {"gpu-a", "gpu-b"}) {
    const auto res = http_send(server.port(), "POST", "/api/v1/nodes",
                               {{"name", name},
                                {"driver", "redfish"},
                                {"endpoint", "https://127.0.0.2:1"},
                                {"credentials", {{"username", "u"}, {"password", "p"}}}},
                               admin);
    REQUIRE(res.status == 201);
  }
  REQUIRE(http_send(server.port(), "PATCH", "/api/v1/nodes/gpu-a",
                    {{"location", {{"site", "lab"}}}}, admin)
              .status == 200);
  const auto res = http_get(server.port(), "/api/v1/nodes/gpu-a/audit", server.token("auditor"));
  REQUIRE(res.status == 200);
  const json items = res.json()["items"];
  REQUIRE(items.size() == 2);
  for (const auto& e : items) CHECK(e["target_name"] == "gpu-a");
  CHECK(items[0]["action"] == "PATCH /api/v1/nodes/{id}");
  CHECK(http_get(server.port(), "/api/v1/nodes/gpu-a/audit", server.token("viewer")).status == 403);
  CHECK(http_get(server.port(), "/api/v1/nodes/nope/audit", admin).status == 404);
}

TEST_CASE("GET /api/v1/audit/verify reports tampering made directly in the database",
          "[web][audit]") {
  TestServer server;
  const std::string admin = server.token("admin");
  make_tokens(server, admin, {"a", "b", "c", "d"});
  const auto verify = [&] {
    const auto res = http_get(server.port(), "/api/v1/audit/verify", admin);
    REQUIRE(res.status == 200);
    return res.json();
  };
  const json intact = verify();
  INFO(intact.dump());
  REQUIRE(intact["ok"] == true);
  CHECK(intact["entries"] == intact["head"]["seq"]);
  const long long head = intact["head"]["seq"];
  REQUIRE(head >= 4);

  SECTION("an edited entry") {
    tamper(server,
           "UPDATE audit_log SET actor = 'someone-else' WHERE seq = " + std::to_string(head - 1));
    const json report = verify();
    CHECK(report["ok"] == false);
    CHECK(report["problem"]["kind"] == "modified");
    CHECK(report["problem"]["seq"] == head - 1);
  }
  SECTION("the newest entry deleted and the head rewound") {
    // The service anchors the head outside the database within a second or so.
    const auto until = std::chrono::steady_clock::now() + 30s;
    auto anchored = [&] {
      std::ifstream in(server.anchor_file());
      std::string line, last;
      while (std::getline(in, line)) last = line;
      return !last.empty() && std::stoll(last) >= head;
    };
    while (!anchored() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(50ms);
    REQUIRE(anchored());
    const std::string newest = std::to_string(verify()["head"]["seq"].get<long long>());
    tamper(server, "DELETE FROM audit_log WHERE seq = " + newest +
                       "; UPDATE audit_chain SET head_seq = head_seq - 1, head_mac = (SELECT mac "
                       "FROM audit_log WHERE seq = " +
                       newest + " - 1)");
    const json report = verify();
    CHECK(report["ok"] == false);
    CHECK(report["problem"]["kind"] == "deleted");
    CHECK(report["problem"]["message"].get<std::string>().find("anchored") != std::string::npos);
  }
}

TEST_CASE("repeated failed sign-ins from an address are refused for a while, and audited",
          "[web][session][throttle]") {
  TestServer server;
  const std::string good = server.token("viewer");
  auto sign_in = [&](const std::string& token) {
    return http_send(server.port(), "POST", "/api/v1/session", {{"token", token}}, std::nullopt);
  };
  for (int i = 0; i < 5; ++i) CHECK(sign_in("ih_not-a-token-" + std::to_string(i)).status == 401);
  const auto refused = sign_in(good);  // even the right token, while the address is blocked
  CHECK(refused.status == 429);
  CHECK(std::stoi(refused.header("retry-after")) > 0);
  CHECK(refused.json()["detail"].get<std::string>().find("too many failed sign-ins") !=
        std::string::npos);

  const auto audit =
      http_get(server.port(), "/api/v1/audit?action=session.create", server.token("auditor"))
          .json()["items"];
  REQUIRE(audit.size() == 6);
  CHECK(audit[0]["outcome"] == "429");
  CHECK(audit[1]["outcome"] == "401");

  // Once the block is over (moved into the past here), the right token signs in and clears it.
  server.database().execute(
      "UPDATE sign_in_failures SET blocked_until = now() - interval '1 second'");
  CHECK(sign_in(good).status == 201);
  CHECK(server.database().execute("SELECT count(*) FROM sign_in_failures") == "0");
}

}  // namespace audit_routes_test

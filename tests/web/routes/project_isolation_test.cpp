// Projects keep teams apart: for every route the service registers, every role a person or a
// service token can hold in project alpha is tried against project beta's node, task, account,
// discovery run, rollout, export and tokens. Nothing of beta may come back (its names and ids are
// searched for in every answer), what addresses beta is refused with 404 or 403, and afterwards
// beta is as it was. A route the table below does not know fails the test: a new route is
// checked here before it ships.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <set>

#include "tests/support/server/http_client.hpp"
#include "tests/support/server/sse_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace project_isolation_test {

using namespace ironhold::test;
using nlohmann::json;

namespace {

const std::string kPassword = "a long enough password 7";

// How an answer of an alpha principal to a route may look.
enum class Expect {
  refused,     // 403 or 404: it addresses something of beta (or a role the caller lacks)
  no_success,  // any refusal (it names beta in a body or a selector, or lacks a secret)
  any,         // a collection or the caller's own: only what alpha may see
  skip,        // the stream, tried by its own test case
};

struct Probe {
  std::string method, pattern;  // as registered
  Expect expect;
  std::string target;  // the path to send (the pattern's parameters filled in)
  std::optional<json> body;
};

struct Beta {
  std::string node_id, node_name = "beta-node-q7x";
  std::string account_id, account_name = "beta-acct-q7x";
  std::string task_id, run_id, rollout_id, export_id;
  std::string token_id, token_name = "beta-svc-q7x";
  std::string auditor = "beta-auditor-q7x";
  std::string alert_id, alert_fingerprint, silence_id, silence_comment = "beta-silence-q7x";
  std::string receiver_id, receiver_name = "beta-recv-q7x";

  std::vector<std::string> markers() const {
    return {node_id,         node_name,   account_id,    account_name,     task_id, run_id,
            rollout_id,      export_id,   token_id,      token_name,       auditor, silence_id,
            silence_comment, receiver_id, receiver_name, alert_fingerprint};
  }
};

struct Principal {
  std::string label;  // "alpha viewer (user)"
  std::string role;
  std::string token;
};

HttpResult call(TestServer& server, const std::string& method, const std::string& target,
                const std::optional<json>& body, const std::string& token) {
  HttpRequest r;
  r.method = method;
  r.target = target;
  r.token = token;
  if (body) r.body = body->dump();
  return http_request(server.port(), r);
}

json created(const HttpResult& res) {
  INFO(res.status << " " << res.body);
  REQUIRE(res.status >= 200);
  REQUIRE(res.status < 300);
  return res.json();
}

class Tenancy {
 public:
  // No task engine: a task stays queued, so that a cancel that got through would show.
  Tenancy() : server_({}, {}, std::nullopt, std::nullopt, std::nullopt) {
    admin_ = server_.token("admin");  // a service token of every project
    for (const char* project : {"alpha", "beta"})
      created(http_send(port(), "POST", "/api/v1/projects", {{"name", project}}, admin_));
    alpha_node_id_ = created(http_send(port(), "POST", "/api/v1/nodes",
                                       node_body(alpha_node_name_, "alpha"), admin_))["id"];
    make_beta();
    for (const std::string role : {"viewer", "operator", "admin", "auditor"}) {
      const std::string user = "alpha-" + role;
      created(http_send(port(), "POST", "/api/v1/users",
                        {{"name", user},
                         {"password", kPassword},
                         {"roles", {{{"project", "alpha"}, {"role", role}}}}},
                        admin_));
      const json token = created(http_send(port(), "POST", "/api/v1/tokens",
                                           {{"name", user + "-token"}, {"user", user}}, admin_));
      principals_.push_back({user + " (user token)", role, token["token"]});
      const json service = created(
          http_send(port(), "POST", "/api/v1/tokens",
                    {{"name", "alpha-svc-" + role}, {"role", role}, {"project", "alpha"}}, admin_));
      principals_.push_back({"alpha " + role + " (service token)", role, service["token"]});
    }
  }

  unsigned short port() const { return server_.port(); }
  TestServer& server() { return server_; }
  const std::string& admin() const { return admin_; }
  const Beta& beta() const { return beta_; }
  const std::vector<Principal>& principals() const { return principals_; }
  const std::string& alpha_node_id() const { return alpha_node_id_; }
  const std::string& alpha_node_name() const { return alpha_node_name_; }

  static json node_body(const std::string& name, const std::string& project) {
    return {{"name", name},
            {"project", project},
            {"driver", "redfish"},
            {"endpoint", "https://127.0.0.1:9"},
            {"credentials", {{"username", "root"}, {"password", "calvin"}}}};
  }

  // Every registered route with what to send and what to expect.
  std::vector<Probe> probes() const {
    const Beta& b = beta_;
    const std::string node = "/api/v1/nodes/" + b.node_id;
    const std::string random_id = "6a1f4c1e-1b7d-4a8e-9d41-7f7c0d5e2a90";
    const json account = {{"name", "intruder-acct"},
                          {"project", "beta"},
                          {"provider", "bcc"},
                          {"region", "bj"},
                          {"endpoint", "http://127.0.0.1:9/"},
                          {"credentials", {{"access_key", "ak"}, {"secret_key", "sk"}}}};
    return {
        {"GET", "/healthz", Expect::any, "/healthz", {}},
        {"GET", "/", Expect::any, "/", {}},
        {"GET", "/assets/{hash}/{path*}", Expect::any, "/assets/x/app.js", {}},
        {"GET", "/metrics", Expect::any, "/metrics", {}},
        {"GET", "/api/v1/whoami", Expect::any, "/api/v1/whoami", {}},
        {"GET", "/api/v1/openapi.json", Expect::any, "/api/v1/openapi.json", {}},
        {"POST", "/api/v1/session", Expect::any, "/api/v1/session", {}},  // body: the token
        {"GET", "/api/v1/session", Expect::any, "/api/v1/session", {}},
        {"DELETE", "/api/v1/session", Expect::any, "/api/v1/session", {}},
        {"GET", "/api/v1/stream", Expect::skip, "", {}},
        {"GET", "/api/v1/nodes", Expect::any, "/api/v1/nodes?lifecycle=enrolled,retired", {}},
        {"GET", "/api/v1/nodes/summary", Expect::any, "/api/v1/nodes/summary", {}},
        {"POST", "/api/v1/nodes", Expect::refused, "/api/v1/nodes",
         node_body("intruder-node", "beta")},
        {"GET", "/api/v1/nodes/{id}", Expect::refused, node, {}},
        {"PATCH", "/api/v1/nodes/{id}", Expect::refused, node, json{{"tags", {{"x", "y"}}}}},
        {"DELETE", "/api/v1/nodes/{id}", Expect::refused, node + "?purge=true", {}},
        {"POST", "/api/v1/nodes/{id}/power", Expect::refused, node + "/power",
         json{{"action", "off"}}},
        {"POST", "/api/v1/nodes/{id}/boot", Expect::refused, node + "/boot",
         json{{"device", "pxe"}}},
        {"POST", "/api/v1/nodes/{id}/identify", Expect::refused, node + "/identify",
         json{{"on", true}}},
        {"POST", "/api/v1/nodes/{id}/reprovision", Expect::refused, node + "/reprovision",
         json::object()},
        {"POST", "/api/v1/nodes/{id}/firmware", Expect::refused, node + "/firmware",
         json{{"image", random_id}}},
        {"POST", "/api/v1/nodes/{id}/lifecycle", Expect::refused, node + "/lifecycle",
         json{{"action", "retire"}}},
        {"POST", "/api/v1/nodes/{id}/inspect", Expect::refused, node + "/inspect", {}},
        {"GET",
         "/api/v1/nodes/{id}/event-subscription",
         Expect::refused,
         node + "/event-subscription",
         {}},
        {"POST", "/api/v1/nodes/{id}/tls/repin", Expect::refused, node + "/tls/repin", {}},
        {"GET", "/api/v1/nodes/{id}/components", Expect::refused, node + "/components", {}},
        {"GET", "/api/v1/nodes/{id}/firmware", Expect::refused, node + "/firmware", {}},
        {"GET", "/api/v1/nodes/{id}/sensors", Expect::refused, node + "/sensors", {}},
        {"GET", "/api/v1/nodes/{id}/events", Expect::refused, node + "/events", {}},
        {"GET", "/api/v1/nodes/{id}/audit", Expect::refused, node + "/audit", {}},
        {"GET", "/api/v1/events", Expect::any, "/api/v1/events", {}},
        {"GET", "/api/v1/tasks", Expect::any, "/api/v1/tasks", {}},
        {"GET", "/api/v1/tasks/{id}", Expect::refused, "/api/v1/tasks/" + b.task_id, {}},
        {"POST",
         "/api/v1/tasks/{id}/cancel",
         Expect::refused,
         "/api/v1/tasks/" + b.task_id + "/cancel",
         {}},
        // A selector that matches nothing the caller may act on is nothing to do (202, none).
        {"POST", "/api/v1/actions", Expect::any, "/api/v1/actions",
         json{{"selector", {{"tag", "team:beta-only"}}},
              {"action", "power"},
              {"parameters", {{"action", "off"}}}}},
        {"POST", "/api/v1/discovery", Expect::refused, "/api/v1/discovery",
         json{{"addresses", "127.0.0.1"}, {"ports", {9}}, {"project", "beta"}}},
        {"GET", "/api/v1/discovery", Expect::any, "/api/v1/discovery", {}},
        {"GET", "/api/v1/discovery/{id}", Expect::refused, "/api/v1/discovery/" + b.run_id, {}},
        {"POST", "/api/v1/cloud-accounts", Expect::refused, "/api/v1/cloud-accounts", account},
        {"GET", "/api/v1/cloud-accounts", Expect::any, "/api/v1/cloud-accounts", {}},
        {"GET",
         "/api/v1/cloud-accounts/{id}",
         Expect::refused,
         "/api/v1/cloud-accounts/" + b.account_id,
         {}},
        {"PATCH", "/api/v1/cloud-accounts/{id}", Expect::refused,
         "/api/v1/cloud-accounts/" + b.account_id, json{{"sync_interval_s", 900}}},
        {"DELETE",
         "/api/v1/cloud-accounts/{id}",
         Expect::refused,
         "/api/v1/cloud-accounts/" + b.account_name,
         {}},
        {"POST",
         "/api/v1/cloud-accounts/{id}/sync",
         Expect::refused,
         "/api/v1/cloud-accounts/" + b.account_id + "/sync",
         {}},
        {"POST", "/api/v1/firmware/images", Expect::refused, "/api/v1/firmware/images", {}},
        {"GET", "/api/v1/firmware/images", Expect::any, "/api/v1/firmware/images", {}},
        {"GET",
         "/api/v1/firmware/images/{id}",
         Expect::refused,
         "/api/v1/firmware/images/" + random_id,
         {}},
        {"DELETE",
         "/api/v1/firmware/images/{id}",
         Expect::refused,
         "/api/v1/firmware/images/" + random_id,
         {}},
        {"POST", "/api/v1/firmware/images/{id}/url", Expect::refused,
         "/api/v1/firmware/images/" + random_id + "/url", json::object()},
        {"GET",
         "/api/v1/firmware/images/{id}/content",
         Expect::no_success,
         "/api/v1/firmware/images/" + random_id + "/content",
         {}},
        {"PUT", "/api/v1/firmware/baselines/{model}", Expect::refused,
         "/api/v1/firmware/baselines/M-1", json{{"components", {{"BIOS", "2.0"}}}}},
        {"GET", "/api/v1/firmware/baselines", Expect::any, "/api/v1/firmware/baselines", {}},
        {"GET",
         "/api/v1/firmware/baselines/{model}",
         Expect::any,
         "/api/v1/firmware/baselines/M-1",
         {}},
        {"DELETE",
         "/api/v1/firmware/baselines/{model}",
         Expect::refused,
         "/api/v1/firmware/baselines/M-1",
         {}},
        {"GET", "/api/v1/firmware/compliance", Expect::any, "/api/v1/firmware/compliance", {}},
        {"POST", "/api/v1/firmware/rollouts", Expect::refused, "/api/v1/firmware/rollouts",
         json{{"image", random_id}, {"selector", {{"names", b.node_name}}}, {"project", "beta"}}},
        {"GET", "/api/v1/firmware/rollouts", Expect::any, "/api/v1/firmware/rollouts", {}},
        {"GET",
         "/api/v1/firmware/rollouts/{id}",
         Expect::refused,
         "/api/v1/firmware/rollouts/" + b.rollout_id,
         {}},
        {"POST",
         "/api/v1/firmware/rollouts/{id}/pause",
         Expect::refused,
         "/api/v1/firmware/rollouts/" + b.rollout_id + "/pause",
         {}},
        {"POST",
         "/api/v1/firmware/rollouts/{id}/resume",
         Expect::refused,
         "/api/v1/firmware/rollouts/" + b.rollout_id + "/resume",
         {}},
        {"POST",
         "/api/v1/firmware/rollouts/{id}/abort",
         Expect::refused,
         "/api/v1/firmware/rollouts/" + b.rollout_id + "/abort",
         {}},
        {"GET", "/api/v1/export/assets", Expect::any, "/api/v1/export/assets?format=json", {}},
        {"GET", "/api/v1/export/firmware", Expect::any, "/api/v1/export/firmware", {}},
        {"GET",
         "/api/v1/export/manifests/{id}",
         Expect::refused,
         "/api/v1/export/manifests/" + b.export_id,
         {}},
        {"GET", "/api/v1/audit", Expect::any, "/api/v1/audit?limit=1000", {}},
        {"GET", "/api/v1/audit/verify", Expect::refused, "/api/v1/audit/verify", {}},
        {"GET", "/api/v1/tokens", Expect::any, "/api/v1/tokens?include_revoked=true", {}},
        {"POST", "/api/v1/tokens", Expect::refused, "/api/v1/tokens",
         json{{"name", "intruder-token"}, {"role", "admin"}, {"project", "beta"}}},
        {"DELETE", "/api/v1/tokens/{id}", Expect::refused, "/api/v1/tokens/" + b.token_id, {}},
        {"GET", "/api/v1/users", Expect::refused, "/api/v1/users", {}},
        {"POST", "/api/v1/users", Expect::refused, "/api/v1/users",
         json{{"name", "intruder"}, {"password", kPassword}}},
        {"GET", "/api/v1/users/{name}", Expect::refused, "/api/v1/users/" + b.auditor, {}},
        {"DELETE", "/api/v1/users/{name}", Expect::refused, "/api/v1/users/" + b.auditor, {}},
        {"PUT", "/api/v1/users/{name}/password", Expect::refused,
         "/api/v1/users/" + b.auditor + "/password", json{{"password", kPassword + "x"}}},
        {"POST", "/api/v1/users/{name}/roles", Expect::refused, "/api/v1/users/alpha-viewer/roles",
         json{{"project", "beta"}, {"role", "admin"}}},
        {"DELETE",
         "/api/v1/users/{name}/roles/{role}",
         Expect::refused,
         "/api/v1/users/" + b.auditor + "/roles/auditor?project=beta",
         {}},
        {"GET", "/api/v1/projects", Expect::any, "/api/v1/projects", {}},
        {"POST", "/api/v1/projects", Expect::refused, "/api/v1/projects",
         json{{"name", "intruders"}}},
        {"GET", "/api/v1/projects/{name}", Expect::refused, "/api/v1/projects/beta", {}},
        {"DELETE", "/api/v1/projects/{name}", Expect::refused, "/api/v1/projects/beta", {}},
        {"GET", "/api/v1/alerts", Expect::any, "/api/v1/alerts?limit=1000", {}},
        {"GET", "/api/v1/alerts/{id}", Expect::refused, "/api/v1/alerts/" + b.alert_id, {}},
        {"POST",
         "/api/v1/alerts/{id}/ack",
         Expect::refused,
         "/api/v1/alerts/" + b.alert_id + "/ack",
         {}},
        {"POST", "/api/v1/silences", Expect::refused, "/api/v1/silences",
         json{{"selector", {{"names", b.node_name}}},
              {"ends_at", "2099-01-01T00:00:00Z"},
              {"project", "beta"}}},
        {"GET", "/api/v1/silences", Expect::any, "/api/v1/silences?include_ended=true", {}},
        {"DELETE",
         "/api/v1/silences/{id}",
         Expect::refused,
         "/api/v1/silences/" + b.silence_id,
         {}},
        {"POST", "/api/v1/alert-receivers", Expect::refused, "/api/v1/alert-receivers",
         json{{"name", "intruder-recv"},
              {"url", "http://127.0.0.1:9/"},
              {"secret", "0123456789abcdef-intruder"},
              {"project", "beta"}}},
        {"GET", "/api/v1/alert-receivers", Expect::any, "/api/v1/alert-receivers", {}},
        {"DELETE",
         "/api/v1/alert-receivers/{id}",
         Expect::refused,
         "/api/v1/alert-receivers/" + b.receiver_id,
         {}},
        {"GET", "/api/v1/provisioning/ipxe", Expect::no_success, "/api/v1/provisioning/ipxe", {}},
        {"POST", "/api/v1/provisioning/callback", Expect::no_success,
         "/api/v1/provisioning/callback", json{{"token", "0000"}, {"status", "succeeded"}}},
        // Only the BMC's own subscription secret is taken: no principal's credential opens it.
        {"POST", "/api/v1/redfish-events/{secret}", Expect::no_success,
         "/api/v1/redfish-events/not-the-secret", json{{"Events", json::array()}}},
    };
  }

 private:
  void make_beta() {
    Beta& b = beta_;
    json node = node_body(b.node_name, "beta");
    node["tags"] = {{"team", "beta-only"}};
    b.node_id = created(http_send(port(), "POST", "/api/v1/nodes", node, admin_))["id"];
    json account = {{"name", b.account_name},
                    {"project", "beta"},
                    {"provider", "bcc"},
                    {"region", "bj"},
                    {"endpoint", "http://127.0.0.1:9/"},
                    {"credentials", {{"access_key", "ak-beta"}, {"secret_key", "sk-beta"}}}};
    b.account_id =
        created(http_send(port(), "POST", "/api/v1/cloud-accounts", account, admin_))["id"];
    b.task_id = created(http_send(port(), "POST", "/api/v1/nodes/" + b.node_id + "/power",
                                  {{"action", "on"}}, admin_))["id"];
    b.run_id = created(http_send(
        port(), "POST", "/api/v1/discovery",
        {{"addresses", "127.0.0.1"}, {"ports", {9}}, {"timeout_ms", 200}, {"project", "beta"}},
        admin_))["id"];
    const json token = created(
        http_send(port(), "POST", "/api/v1/tokens",
                  {{"name", b.token_name}, {"role", "admin"}, {"project", "beta"}}, admin_));
    b.token_id = token["id"];
    // A beta auditor's export: its manifest covers beta alone.
    created(http_send(port(), "POST", "/api/v1/users",
                      {{"name", b.auditor},
                       {"password", kPassword},
                       {"roles", {{{"project", "beta"}, {"role", "auditor"}}}}},
                      admin_));
    const std::string beta_auditor =
        created(http_send(port(), "POST", "/api/v1/tokens",
                          {{"name", "beta-audit"}, {"user", b.auditor}}, admin_))["token"];
    const auto exported = http_get(port(), "/api/v1/export/assets", beta_auditor);
    REQUIRE(exported.status == 200);
    REQUIRE(exported.body.find(b.node_name) != std::string::npos);
    b.export_id = exported.header("x-export-id");
    // A rollout and an event of beta's node, written as the rollout runner and the poller would.
    pqxx::connection c(server_.database().url());
    pqxx::work tx(c);
    b.rollout_id =
        tx.exec_params1(
              "INSERT INTO firmware_rollouts (image_id, image_name, component, version, selector, "
              "  canary, batch_size, max_parallel_per_rack, max_failures, health_gate_seconds, "
              "  task_parameters, requested_by, project) "
              "VALUES (gen_random_uuid(), 'bios-q7x', 'BIOS', '9.9', $1::jsonb, 0, 1, 1, 0, 0, "
              "        '{}', 'admin', 'beta') RETURNING id",
              json{{"names", b.node_name}}.dump())[0]
            .as<std::string>();
    // A new hardware log entry of the BMC's own (source_id; its log was read before): it is an
    // alert of beta's at once.
    tx.exec_params("INSERT INTO node_log_baselines (node_id) VALUES ($1::uuid)", b.node_id);
    tx.exec_params(
        "INSERT INTO events (node_id, node_name, kind, severity, message, source_id) "
        "VALUES ($1::uuid, $2, 'sel', 'critical', 'PSU 2 failed on ' || $2, 'sel-17')",
        b.node_id, b.node_name);
    const auto alert = tx.exec_params1(
        "SELECT id::text, fingerprint FROM alerts WHERE node_id = $1::uuid", b.node_id);
    b.alert_id = alert[0].as<std::string>();
    b.alert_fingerprint = alert[1].as<std::string>();
    tx.commit();
    b.silence_id = created(http_send(port(), "POST", "/api/v1/silences",
                                     {{"selector", {{"names", b.node_name}}},
                                      {"ends_at", "2099-01-01T00:00:00Z"},
                                      {"comment", b.silence_comment},
                                      {"project", "beta"}},
                                     admin_))["id"];
    b.receiver_id = created(http_send(port(), "POST", "/api/v1/alert-receivers",
                                      {{"name", b.receiver_name},
                                       {"url", "http://127.0.0.1:9/hook"},
                                       {"secret", "beta-receiver-secret-0001"},
                                       {"project", "beta"}},
                                      admin_))["id"];
  }

  TestServer server_;
  std::string admin_;
  std::string alpha_node_id_;
  std::string alpha_node_name_ = "alpha-node-k3";
  Beta beta_;
  std::vector<Principal> principals_;
};

std::string found_marker(const std::string& body, const std::vector<std::string>& markers) {
  for (const auto& m : markers)
    if (!m.empty() && body.find(m) != std::string::npos) return m;
  return {};
}

}  // namespace

TEST_CASE("no role in one project sees, exports or acts on another project's anything",
          "[web][projects]") {
  Tenancy t;
  const Beta& beta = t.beta();
  const auto markers = beta.markers();

  // The markers are there to be found: an admin of every project sees them.
  const auto everything = http_get(t.port(), "/api/v1/nodes", t.admin());
  REQUIRE(found_marker(everything.body, markers) == beta.node_id);

  // The table knows every route the service registers.
  const auto probes = t.probes();
  std::set<std::pair<std::string, std::string>> known;
  for (const auto& p : probes) known.insert({p.method, p.pattern});
  for (const auto& route : t.server().host().api().router().routes()) {
    const std::string method(boost::beast::http::to_string(route.method));
    INFO("route " << method << " " << route.pattern
                  << " is not in the isolation table: add what it must answer to alpha");
    CHECK(known.count({method, route.pattern}) == 1);
  }

  for (const auto& who : t.principals()) {
    for (const auto& probe : probes) {
      if (probe.expect == Expect::skip) continue;
      std::optional<json> body = probe.body;
      if (probe.pattern == "/api/v1/session" && probe.method == "POST")
        body = json{{"token", who.token}};
      const auto res = call(t.server(), probe.method, probe.target, body, who.token);
      INFO(who.label << ": " << probe.method << " " << probe.target << " -> " << res.status << " "
                     << res.body.substr(0, 300));
      // An answer may repeat what the caller sent (the path, a name in the body): only beta's
      // values the caller did not send would be news to it.
      std::vector<std::string> unsent;
      const std::string sent = probe.target + (body ? body->dump() : "");
      for (const auto& m : markers)
        if (sent.find(m) == std::string::npos) unsent.push_back(m);
      CHECK(found_marker(res.body, unsent) == "");
      switch (probe.expect) {
        case Expect::refused:
          CHECK((res.status == 403 || res.status == 404));
          break;
        case Expect::no_success:
          CHECK((res.status >= 400 && res.status < 500));
          break;
        case Expect::any:
        case Expect::skip:
          CHECK(res.status < 500);
          break;
      }
    }
  }

  // Beta is as it was.
  const json node = http_get(t.port(), "/api/v1/nodes/" + beta.node_id, t.admin()).json();
  CHECK(node["tags"] == json{{"team", "beta-only"}});
  CHECK(node["lifecycle"] == "enrolled");
  CHECK(node["project"] == "beta");
  const json task = http_get(t.port(), "/api/v1/tasks/" + beta.task_id, t.admin()).json();
  CHECK(task["state"] == "queued");
  CHECK(task["cancel_requested"] == false);
  const json beta_tasks =
      http_get(t.port(), "/api/v1/tasks?node=" + beta.node_id, t.admin()).json();
  CHECK(beta_tasks["items"].size() == 1);
  CHECK(http_get(t.port(), "/api/v1/cloud-accounts/" + beta.account_id, t.admin()).status == 200);
  const json rollout =
      http_get(t.port(), "/api/v1/firmware/rollouts/" + beta.rollout_id, t.admin()).json();
  CHECK(rollout["state"] == "running");
  const json tokens = http_get(t.port(), "/api/v1/tokens", t.admin()).json();
  bool beta_token_live = false;
  for (const auto& k : tokens["items"])
    if (k["id"] == beta.token_id) beta_token_live = k["revoked_at"].is_null();
  CHECK(beta_token_live);
  const json alert = http_get(t.port(), "/api/v1/alerts/" + beta.alert_id, t.admin()).json();
  CHECK(alert["state"] == "firing");
  CHECK(alert["project"] == "beta");
  const json silences = http_get(t.port(), "/api/v1/silences", t.admin()).json();
  REQUIRE(silences["items"].size() == 1);
  CHECK(silences["items"][0]["expired_at"].is_null());
  CHECK(http_get(t.port(), "/api/v1/alert-receivers", t.admin()).json()["items"].size() == 1);
  const json users = http_get(t.port(), "/api/v1/users", t.admin()).json();
  std::set<std::string> names;
  for (const auto& u : users["items"]) names.insert(u["name"]);
  CHECK(names.count(beta.auditor) == 1);
  CHECK(names.count("intruder") == 0);
  const json alpha_viewer = http_get(t.port(), "/api/v1/users/alpha-viewer", t.admin()).json();
  CHECK(alpha_viewer["roles"].size() == 1);
}

TEST_CASE("each role does what it may in its own project", "[web][projects]") {
  Tenancy t;
  const std::string alpha_node = "/api/v1/nodes/" + t.alpha_node_id();
  for (const auto& who : t.principals()) {
    INFO(who.label);
    const auto shown = http_get(t.port(), alpha_node, who.token);
    CHECK(shown.status == 200);
    const auto listed = http_get(t.port(), "/api/v1/nodes", who.token);
    CHECK(listed.body.find(t.alpha_node_name()) != std::string::npos);
    CHECK(http_get(t.port(), "/api/v1/nodes/summary", who.token).json()["total"] == 1);
    const auto metrics = http_get(t.port(), "/metrics", who.token);
    CHECK(metrics.body.find(t.alpha_node_name()) != std::string::npos);

    const bool acts = who.role == "operator" || who.role == "admin";
    const auto power =
        http_send(t.port(), "POST", alpha_node + "/power", {{"action", "off"}}, who.token);
    CHECK(power.status == (acts ? 202 : 403));

    const bool audits = who.role == "auditor" || who.role == "admin";
    const auto audit = http_get(t.port(), "/api/v1/audit?limit=1000", who.token);
    CHECK(audit.status == (audits ? 200 : 403));
    if (audits) CHECK(audit.body.find(t.alpha_node_name()) != std::string::npos);
    const auto node_audit = http_get(t.port(), alpha_node + "/audit", who.token);
    CHECK(node_audit.status == (audits ? 200 : 403));

    // Only an admin of the project moves a node out of it, and only into a project it
    // administers too.
    const auto moved = http_send(t.port(), "PATCH", alpha_node, {{"project", "beta"}}, who.token);
    CHECK((moved.status == 403 || moved.status == 404));
  }
}

TEST_CASE("the change stream carries a project's changes only", "[web][projects]") {
  Tenancy t;
  const Principal& viewer = t.principals().front();
  SseClient alpha(t.port(), "/api/v1/stream", viewer.token);
  REQUIRE(alpha.status() == 200);
  alpha.until_comment("connected");
  SseClient everything(t.port(), "/api/v1/stream", t.admin());
  REQUIRE(everything.status() == 200);
  everything.until_comment("connected");

  // Beta changes first, then alpha: once alpha's change arrives, beta's would have come before.
  REQUIRE(http_send(t.port(), "PATCH", "/api/v1/nodes/" + t.beta().node_id,
                    {{"tags", {{"rack", "b1"}}}}, t.admin())
              .status == 200);
  REQUIRE(http_send(t.port(), "PATCH", "/api/v1/nodes/" + t.alpha_node_id(),
                    {{"tags", {{"rack", "a1"}}}}, t.admin())
              .status == 200);
  const auto seen = alpha.until(
      [&](const SseEvent& e) { return e.data.find(t.alpha_node_id()) != std::string::npos; });
  for (const auto& e : seen) {
    INFO(e.type << " " << e.data);
    CHECK(found_marker(e.data, t.beta().markers()).empty());
  }
  // The admin's stream had beta's change (the test would pass vacuously otherwise).
  const auto admin_seen = everything.until(
      [&](const SseEvent& e) { return e.data.find(t.alpha_node_id()) != std::string::npos; });
  bool beta_change = false;
  for (const auto& e : admin_seen)
    beta_change = beta_change || e.data.find(t.beta().node_id) != std::string::npos;
  CHECK(beta_change);

  // A node moved from beta to alpha leaves beta's streams and enters alpha's.
  REQUIRE(http_send(t.port(), "PATCH", "/api/v1/nodes/" + t.beta().node_id, {{"project", "alpha"}},
                    t.admin())
              .status == 200);
  const auto entered = alpha.until([&](const SseEvent& e) {
    return e.type == "node.updated" && e.data.find(t.beta().node_id) != std::string::npos;
  });
  CHECK(entered.back().data.find("\"project\":\"alpha\"") != std::string::npos);
}

TEST_CASE("an export as of a past time shows each project the nodes that were its own then",
          "[web][projects]") {
  Tenancy t;
  const Beta& beta = t.beta();
  auto auditor_of = [&](const std::string& project) {
    const std::string user = project + "-exporter";
    REQUIRE(http_send(t.port(), "POST", "/api/v1/users",
                      {{"name", user},
                       {"password", kPassword},
                       {"roles", {{{"project", project}, {"role", "auditor"}}}}},
                      t.admin())
                .status == 201);
    return created(http_send(t.port(), "POST", "/api/v1/tokens",
                             {{"name", user + "-token"}, {"user", user}}, t.admin()))["token"]
        .get<std::string>();
  };
  const std::string alpha = auditor_of("alpha"), beta_auditor = auditor_of("beta");
  // The database's clock, so that the moment falls between the two versions whatever the skew.
  pqxx::connection c(t.server().database().url());
  const std::string before = pqxx::nontransaction(c)
                                 .exec1(
                                     "SELECT to_char(now() AT TIME ZONE 'UTC', "
                                     "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')")[0]
                                 .as<std::string>();
  REQUIRE(http_send(t.port(), "PATCH", "/api/v1/nodes/" + beta.node_id, {{"project", "alpha"}},
                    t.admin())
              .status == 200);

  auto exported = [&](const std::string& token, const std::string& as_of) {
    const auto res = http_get(
        t.port(), "/api/v1/export/assets" + (as_of.empty() ? "" : "?as_of=" + url_encode(as_of)),
        token);
    INFO(res.body);
    REQUIRE(res.status == 200);
    return res.body.find(beta.node_name) != std::string::npos;
  };
  CHECK(exported(beta_auditor, before));
  CHECK_FALSE(exported(beta_auditor, ""));
  CHECK_FALSE(exported(alpha, before));
  CHECK(exported(alpha, ""));
}

}  // namespace project_isolation_test

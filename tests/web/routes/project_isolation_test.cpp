// Projects keep teams apart. Two projects, alpha and beta, each hold a node, a task, an event and
// its alert, a cloud account, a discovery run, a rollout, an export, a silence, a receiver, users
// and tokens. For every route the service registers, every principal of one project (each role as
// a user's token and as a service token, a console session signed in with a password, and tokens
// of a user of both projects narrowed to one) is tried against the other project's holdings, both
// ways. Nothing of the other project may come back (its names and ids are searched for in every
// answer), what addresses it is refused with 404 or 403, and afterwards it is as it was. A route
// the table below does not know fails the test: a new route is checked here before it ships. The
// change stream and /metrics, which answer with what the caller may see rather than refuse, have
// test cases of their own that show the other project's changes and series are there to be seen.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <set>

#include "tests/support/server/http_client.hpp"
#include "tests/support/server/sse_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace project_isolation_test {

using namespace ironhold::test;
using ironhold::PollerOptions;
using nlohmann::json;

namespace {

const std::string kPassword = "a long enough password 7";
const std::vector<std::string> kRoles = {"viewer", "operator", "admin", "auditor"};

// How an answer of one project's principal to a route may look.
enum class Expect {
  refused,     // 403 or 404: it addresses something of the other project (or a role the caller
               // lacks)
  no_success,  // any refusal (it names the other project in a body or a selector, or lacks a
               // secret)
  any,         // a collection or the caller's own: only what its project may see
  skip,        // the stream, tried by its own test case
};

struct Probe {
  std::string method, pattern;  // as registered
  Expect expect;
  std::string target;  // the path to send (the pattern's parameters filled in)
  std::optional<json> body;
};

// What one project holds, that no principal of another may see or touch.
struct Holdings {
  std::string project;
  std::string node_id, node_name;
  std::string account_id, account_name;
  std::string task_id, run_id, rollout_id, export_id;
  std::string token_id, token_name;
  std::string auditor;
  std::string alert_id, alert_fingerprint, silence_id, silence_comment;
  std::string receiver_id, receiver_name;

  explicit Holdings(const std::string& p)
      : project(p),
        node_name(p + "-node-q7x"),
        account_name(p + "-acct-q7x"),
        token_name(p + "-svc-q7x"),
        auditor(p + "-auditor-q7x"),
        silence_comment(p + "-silence-q7x"),
        receiver_name(p + "-recv-q7x") {}

  std::vector<std::string> markers() const {
    return {node_id,         node_name,   account_id,    account_name,     task_id, run_id,
            rollout_id,      export_id,   token_id,      token_name,       auditor, silence_id,
            silence_comment, receiver_id, receiver_name, alert_fingerprint};
  }
};

struct Principal {
  std::string label;    // "alpha viewer (user token)"
  std::string project;  // the project it may see
  std::string role;     // what it may do there
  std::string token;    // a bearer token; empty for a console session
  std::string user;     // a console session: who signed in (with kPassword)
  std::string cookie;   // "ironhold_session=..."
  std::string csrf;
};

// A request as the principal makes it: its bearer token, or its session cookie with the
// session's CSRF token (without which a change is refused whatever it addresses).
HttpResult call(TestServer& server, const std::string& method, const std::string& target,
                const std::optional<json>& body, const Principal& who) {
  HttpRequest r;
  r.method = method;
  r.target = target;
  if (!who.token.empty()) r.token = who.token;
  if (!who.cookie.empty()) {
    r.headers["Cookie"] = who.cookie;
    r.headers["X-CSRF-Token"] = who.csrf;
  }
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
  // No task engine: a task stays queued, so that a cancel that got through would show. A poller
  // only when a test asks for one (its nodes' ports answer nothing).
  explicit Tenancy(std::optional<PollerOptions> poller = std::nullopt)
      : server_({}, {}, std::move(poller), std::nullopt, std::nullopt) {
    admin_ = server_.token("admin");  // a service token of every project
    for (const char* project : {"alpha", "beta"})
      created(http_send(port(), "POST", "/api/v1/projects", {{"name", project}}, admin_));
    make_holdings(alpha_);
    make_holdings(beta_);
    // A user of both projects, whose tokens are each narrowed to one of them.
    created(http_send(
        port(), "POST", "/api/v1/users",
        {{"name", "dual-admin"},
         {"password", kPassword},
         {"roles",
          {{{"project", "alpha"}, {"role", "admin"}}, {{"project", "beta"}, {"role", "admin"}}}}},
        admin_));
    for (const char* project : {"alpha", "beta"}) make_principals(project);
  }

  unsigned short port() const { return server_.port(); }
  TestServer& server() { return server_; }
  const std::string& admin() const { return admin_; }
  const Holdings& holdings(const std::string& project) const {
    return project == "alpha" ? alpha_ : beta_;
  }
  const Holdings& alpha() const { return alpha_; }
  const Holdings& beta() const { return beta_; }
  // Every principal of the project: none holds a role in any other (or may use it).
  std::vector<Principal> principals(const std::string& project) const {
    std::vector<Principal> out;
    for (const auto& p : principals_)
      if (p.project == project) out.push_back(p);
    return out;
  }

  static json node_body(const std::string& name, const std::string& project) {
    return {{"name", name},
            {"project", project},
            {"driver", "redfish"},
            {"endpoint", "https://127.0.0.1:9"},
            {"credentials", {{"username", "root"}, {"password", "calvin"}}}};
  }

  // Every registered route with what to send and what to expect, as a principal of project
  // `own` addressing the holdings `h` of another.
  static std::vector<Probe> probes(const Holdings& h, const std::string& own) {
    const std::string node = "/api/v1/nodes/" + h.node_id;
    const std::string random_id = "6a1f4c1e-1b7d-4a8e-9d41-7f7c0d5e2a90";
    const json account = {{"name", "intruder-acct"},
                          {"project", h.project},
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
        {"POST", "/api/v1/session", Expect::any, "/api/v1/session", {}},  // body: a sign-in
        {"GET", "/api/v1/session", Expect::any, "/api/v1/session", {}},
        {"GET", "/api/v1/stream", Expect::skip, "", {}},
        {"GET", "/api/v1/nodes", Expect::any, "/api/v1/nodes?lifecycle=enrolled,retired", {}},
        {"GET", "/api/v1/nodes/summary", Expect::any, "/api/v1/nodes/summary", {}},
        {"POST", "/api/v1/nodes", Expect::refused, "/api/v1/nodes",
         node_body("intruder-node", h.project)},
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
        {"GET", "/api/v1/tasks/{id}", Expect::refused, "/api/v1/tasks/" + h.task_id, {}},
        {"POST",
         "/api/v1/tasks/{id}/cancel",
         Expect::refused,
         "/api/v1/tasks/" + h.task_id + "/cancel",
         {}},
        // A selector that matches nothing the caller may act on is nothing to do (202, none).
        {"POST", "/api/v1/actions", Expect::any, "/api/v1/actions",
         json{{"selector", {{"tag", "team:" + h.project + "-only"}}},
              {"action", "power"},
              {"parameters", {{"action", "off"}}}}},
        {"POST", "/api/v1/discovery", Expect::refused, "/api/v1/discovery",
         json{{"addresses", "127.0.0.1"}, {"ports", {9}}, {"project", h.project}}},
        {"GET", "/api/v1/discovery", Expect::any, "/api/v1/discovery", {}},
        {"GET", "/api/v1/discovery/{id}", Expect::refused, "/api/v1/discovery/" + h.run_id, {}},
        {"POST", "/api/v1/cloud-accounts", Expect::refused, "/api/v1/cloud-accounts", account},
        {"GET", "/api/v1/cloud-accounts", Expect::any, "/api/v1/cloud-accounts", {}},
        {"GET",
         "/api/v1/cloud-accounts/{id}",
         Expect::refused,
         "/api/v1/cloud-accounts/" + h.account_id,
         {}},
        {"PATCH", "/api/v1/cloud-accounts/{id}", Expect::refused,
         "/api/v1/cloud-accounts/" + h.account_id, json{{"sync_interval_s", 900}}},
        {"DELETE",
         "/api/v1/cloud-accounts/{id}",
         Expect::refused,
         "/api/v1/cloud-accounts/" + h.account_name,
         {}},
        {"POST",
         "/api/v1/cloud-accounts/{id}/sync",
         Expect::refused,
         "/api/v1/cloud-accounts/" + h.account_id + "/sync",
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
         json{
             {"image", random_id}, {"selector", {{"names", h.node_name}}}, {"project", h.project}}},
        {"GET", "/api/v1/firmware/rollouts", Expect::any, "/api/v1/firmware/rollouts", {}},
        {"GET",
         "/api/v1/firmware/rollouts/{id}",
         Expect::refused,
         "/api/v1/firmware/rollouts/" + h.rollout_id,
         {}},
        {"POST",
         "/api/v1/firmware/rollouts/{id}/pause",
         Expect::refused,
         "/api/v1/firmware/rollouts/" + h.rollout_id + "/pause",
         {}},
        {"POST",
         "/api/v1/firmware/rollouts/{id}/resume",
         Expect::refused,
         "/api/v1/firmware/rollouts/" + h.rollout_id + "/resume",
         {}},
        {"POST",
         "/api/v1/firmware/rollouts/{id}/abort",
         Expect::refused,
         "/api/v1/firmware/rollouts/" + h.rollout_id + "/abort",
         {}},
        {"GET", "/api/v1/export/assets", Expect::any, "/api/v1/export/assets?format=json", {}},
        {"GET", "/api/v1/export/firmware", Expect::any, "/api/v1/export/firmware", {}},
        {"GET",
         "/api/v1/export/manifests/{id}",
         Expect::refused,
         "/api/v1/export/manifests/" + h.export_id,
         {}},
        {"GET", "/api/v1/audit", Expect::any, "/api/v1/audit?limit=1000", {}},
        {"GET", "/api/v1/audit/verify", Expect::refused, "/api/v1/audit/verify", {}},
        {"GET", "/api/v1/tokens", Expect::any, "/api/v1/tokens?include_revoked=true", {}},
        {"POST", "/api/v1/tokens", Expect::refused, "/api/v1/tokens",
         json{{"name", "intruder-token"}, {"role", "admin"}, {"project", h.project}}},
        {"DELETE", "/api/v1/tokens/{id}", Expect::refused, "/api/v1/tokens/" + h.token_id, {}},
        {"GET", "/api/v1/users", Expect::refused, "/api/v1/users", {}},
        {"POST", "/api/v1/users", Expect::refused, "/api/v1/users",
         json{{"name", "intruder"}, {"password", kPassword}}},
        {"GET", "/api/v1/users/{name}", Expect::refused, "/api/v1/users/" + h.auditor, {}},
        {"DELETE", "/api/v1/users/{name}", Expect::refused, "/api/v1/users/" + h.auditor, {}},
        {"PUT", "/api/v1/users/{name}/password", Expect::refused,
         "/api/v1/users/" + h.auditor + "/password", json{{"password", kPassword + "x"}}},
        {"POST", "/api/v1/users/{name}/roles", Expect::refused,
         "/api/v1/users/" + own + "-viewer/roles", json{{"project", h.project}, {"role", "admin"}}},
        {"DELETE",
         "/api/v1/users/{name}/roles/{role}",
         Expect::refused,
         "/api/v1/users/" + h.auditor + "/roles/auditor?project=" + h.project,
         {}},
        {"GET", "/api/v1/projects", Expect::any, "/api/v1/projects", {}},
        {"POST", "/api/v1/projects", Expect::refused, "/api/v1/projects",
         json{{"name", "intruders"}}},
        {"GET", "/api/v1/projects/{name}", Expect::refused, "/api/v1/projects/" + h.project, {}},
        {"DELETE", "/api/v1/projects/{name}", Expect::refused, "/api/v1/projects/" + h.project, {}},
        {"GET", "/api/v1/alerts", Expect::any, "/api/v1/alerts?limit=1000", {}},
        {"GET", "/api/v1/alerts/{id}", Expect::refused, "/api/v1/alerts/" + h.alert_id, {}},
        {"POST",
         "/api/v1/alerts/{id}/ack",
         Expect::refused,
         "/api/v1/alerts/" + h.alert_id + "/ack",
         {}},
        {"POST", "/api/v1/silences", Expect::refused, "/api/v1/silences",
         json{{"selector", {{"names", h.node_name}}},
              {"ends_at", "2099-01-01T00:00:00Z"},
              {"project", h.project}}},
        {"GET", "/api/v1/silences", Expect::any, "/api/v1/silences?include_ended=true", {}},
        {"DELETE",
         "/api/v1/silences/{id}",
         Expect::refused,
         "/api/v1/silences/" + h.silence_id,
         {}},
        {"POST", "/api/v1/alert-receivers", Expect::refused, "/api/v1/alert-receivers",
         json{{"name", "intruder-recv"},
              {"url", "http://127.0.0.1:9/"},
              {"secret", "0123456789abcdef-intruder"},
              {"project", h.project}}},
        {"GET", "/api/v1/alert-receivers", Expect::any, "/api/v1/alert-receivers", {}},
        {"DELETE",
         "/api/v1/alert-receivers/{id}",
         Expect::refused,
         "/api/v1/alert-receivers/" + h.receiver_id,
         {}},
        {"GET", "/api/v1/provisioning/ipxe", Expect::no_success, "/api/v1/provisioning/ipxe", {}},
        {"POST", "/api/v1/provisioning/callback", Expect::no_success,
         "/api/v1/provisioning/callback", json{{"token", "0000"}, {"status", "succeeded"}}},
        // Only the BMC's own subscription secret is taken: no principal's credential opens it.
        {"POST", "/api/v1/redfish-events/{secret}", Expect::no_success,
         "/api/v1/redfish-events/not-the-secret", json{{"Events", json::array()}}},
        // Last: it ends a console session, whose cookie the probes before it use.
        {"DELETE", "/api/v1/session", Expect::any, "/api/v1/session", {}},
    };
  }

 private:
  void make_principals(const std::string& project) {
    for (const std::string& role : kRoles) {
      const std::string user = project + "-" + role;
      created(http_send(port(), "POST", "/api/v1/users",
                        {{"name", user},
                         {"password", kPassword},
                         {"roles", {{{"project", project}, {"role", role}}}}},
                        admin_));
      const json token = created(http_send(port(), "POST", "/api/v1/tokens",
                                           {{"name", user + "-token"}, {"user", user}}, admin_));
      principals_.push_back({user + " (user token)", project, role, token["token"], "", "", ""});
      const json service = created(http_send(
          port(), "POST", "/api/v1/tokens",
          {{"name", project + "-svc-" + role}, {"role", role}, {"project", project}}, admin_));
      principals_.push_back(
          {project + " " + role + " (service token)", project, role, service["token"], "", "", ""});
    }
    // An admin of the project in the console, signed in with a name and a password.
    const std::string console = project + "-console";
    created(http_send(port(), "POST", "/api/v1/users",
                      {{"name", console},
                       {"password", kPassword},
                       {"roles", {{{"project", project}, {"role", "admin"}}}}},
                      admin_));
    HttpRequest sign_in;
    sign_in.method = "POST";
    sign_in.target = "/api/v1/session";
    sign_in.body = json{{"username", console}, {"password", kPassword}}.dump();
    const auto session = http_request(port(), sign_in);
    const json signed_in = created(session);
    const std::string set_cookie = session.header("set-cookie");
    REQUIRE(set_cookie.rfind("ironhold_session=", 0) == 0);
    principals_.push_back({console + " (console session)", project, "admin", "", console,
                           set_cookie.substr(0, set_cookie.find(';')),
                           signed_in["csrf_token"].get<std::string>()});
    // The user of both projects, through tokens narrowed to this one: as its admin, and as its
    // viewer only.
    const json narrowed = created(http_send(
        port(), "POST", "/api/v1/tokens",
        {{"name", "dual-" + project}, {"user", "dual-admin"}, {"project", project}}, admin_));
    principals_.push_back({"dual-admin narrowed to " + project + " (user token)", project, "admin",
                           narrowed["token"], "", "", ""});
    const json viewer = created(http_send(port(), "POST", "/api/v1/tokens",
                                          {{"name", "dual-" + project + "-viewer"},
                                           {"user", "dual-admin"},
                                           {"project", project},
                                           {"role", "viewer"}},
                                          admin_));
    principals_.push_back({"dual-admin narrowed to " + project + " viewer (user token)", project,
                           "viewer", viewer["token"], "", "", ""});
  }

  void make_holdings(Holdings& h) {
    json node = node_body(h.node_name, h.project);
    node["tags"] = {{"team", h.project + "-only"}};
    h.node_id = created(http_send(port(), "POST", "/api/v1/nodes", node, admin_))["id"];
    json account = {
        {"name", h.account_name},
        {"project", h.project},
        {"provider", "bcc"},
        {"region", "bj"},
        {"endpoint", "http://127.0.0.1:9/"},
        {"credentials", {{"access_key", "ak-" + h.project}, {"secret_key", "sk-" + h.project}}}};
    h.account_id =
        created(http_send(port(), "POST", "/api/v1/cloud-accounts", account, admin_))["id"];
    h.task_id = created(http_send(port(), "POST", "/api/v1/nodes/" + h.node_id + "/power",
                                  {{"action", "on"}}, admin_))["id"];
    h.run_id = created(http_send(
        port(), "POST", "/api/v1/discovery",
        {{"addresses", "127.0.0.1"}, {"ports", {9}}, {"timeout_ms", 200}, {"project", h.project}},
        admin_))["id"];
    const json token = created(
        http_send(port(), "POST", "/api/v1/tokens",
                  {{"name", h.token_name}, {"role", "admin"}, {"project", h.project}}, admin_));
    h.token_id = token["id"];
    // An auditor's export: its manifest covers the project alone.
    created(http_send(port(), "POST", "/api/v1/users",
                      {{"name", h.auditor},
                       {"password", kPassword},
                       {"roles", {{{"project", h.project}, {"role", "auditor"}}}}},
                      admin_));
    const std::string auditor =
        created(http_send(port(), "POST", "/api/v1/tokens",
                          {{"name", h.project + "-audit"}, {"user", h.auditor}}, admin_))["token"];
    const auto exported = http_get(port(), "/api/v1/export/assets", auditor);
    REQUIRE(exported.status == 200);
    REQUIRE(exported.body.find(h.node_name) != std::string::npos);
    h.export_id = exported.header("x-export-id");
    // A rollout and an event of the node, written as the rollout runner and the poller would.
    pqxx::connection c(server_.database().url());
    pqxx::work tx(c);
    h.rollout_id =
        tx.exec_params1(
              "INSERT INTO firmware_rollouts (image_id, image_name, component, version, selector, "
              "  canary, batch_size, max_parallel_per_rack, max_failures, health_gate_seconds, "
              "  task_parameters, requested_by, project) "
              "VALUES (gen_random_uuid(), 'bios-q7x', 'BIOS', '9.9', $1::jsonb, 0, 1, 1, 0, 0, "
              "        '{}', 'admin', $2) RETURNING id",
              json{{"names", h.node_name}}.dump(), h.project)[0]
            .as<std::string>();
    // A new hardware log entry of the BMC's own (source_id; its log was read before): it is an
    // alert of the project's at once.
    tx.exec_params("INSERT INTO node_log_baselines (node_id) VALUES ($1::uuid)", h.node_id);
    tx.exec_params(
        "INSERT INTO events (node_id, node_name, kind, severity, message, source_id) "
        "VALUES ($1::uuid, $2, 'sel', 'critical', 'PSU 2 failed on ' || $2, 'sel-17')",
        h.node_id, h.node_name);
    const auto alert = tx.exec_params1(
        "SELECT id::text, fingerprint FROM alerts WHERE node_id = $1::uuid", h.node_id);
    h.alert_id = alert[0].as<std::string>();
    h.alert_fingerprint = alert[1].as<std::string>();
    tx.commit();
    h.silence_id = created(http_send(port(), "POST", "/api/v1/silences",
                                     {{"selector", {{"names", h.node_name}}},
                                      {"ends_at", "2099-01-01T00:00:00Z"},
                                      {"comment", h.silence_comment},
                                      {"project", h.project}},
                                     admin_))["id"];
    h.receiver_id = created(http_send(port(), "POST", "/api/v1/alert-receivers",
                                      {{"name", h.receiver_name},
                                       {"url", "http://127.0.0.1:9/hook"},
                                       {"secret", h.project + "-receiver-secret-0001"},
                                       {"project", h.project}},
                                      admin_))["id"];
  }

  TestServer server_;
  std::string admin_;
  Holdings alpha_{"alpha"}, beta_{"beta"};
  std::vector<Principal> principals_;
};

std::string found_marker(const std::string& body, const std::vector<std::string>& markers) {
  for (const auto& m : markers)
    if (!m.empty() && body.find(m) != std::string::npos) return m;
  return {};
}

// What the other project's principals tried left the project's holdings as they were.
void check_untouched(Tenancy& t, const Holdings& h) {
  INFO("the holdings of " << h.project);
  const json node = http_get(t.port(), "/api/v1/nodes/" + h.node_id, t.admin()).json();
  CHECK(node["tags"] == json{{"team", h.project + "-only"}});
  CHECK(node["lifecycle"] == "enrolled");
  CHECK(node["project"] == h.project);
  const json task = http_get(t.port(), "/api/v1/tasks/" + h.task_id, t.admin()).json();
  CHECK(task["state"] == "queued");
  CHECK(task["cancel_requested"] == false);
  const json tasks = http_get(t.port(), "/api/v1/tasks?node=" + h.node_id, t.admin()).json();
  CHECK(tasks["items"].size() == 1);
  CHECK(http_get(t.port(), "/api/v1/cloud-accounts/" + h.account_id, t.admin()).status == 200);
  const json rollout =
      http_get(t.port(), "/api/v1/firmware/rollouts/" + h.rollout_id, t.admin()).json();
  CHECK(rollout["state"] == "running");
  const json tokens = http_get(t.port(), "/api/v1/tokens", t.admin()).json();
  bool token_live = false;
  for (const auto& k : tokens["items"])
    if (k["id"] == h.token_id) token_live = k["revoked_at"].is_null();
  CHECK(token_live);
  const json alert = http_get(t.port(), "/api/v1/alerts/" + h.alert_id, t.admin()).json();
  CHECK(alert["state"] == "firing");
  CHECK(alert["project"] == h.project);
  const json silences = http_get(t.port(), "/api/v1/silences?include_ended=true", t.admin()).json();
  std::vector<json> own_silences;
  for (const auto& s : silences["items"])
    if (s["project"] == h.project) own_silences.push_back(s);
  REQUIRE(own_silences.size() == 1);
  CHECK(own_silences[0]["id"] == h.silence_id);
  CHECK(own_silences[0]["expired_at"].is_null());
  const json receivers_listed = http_get(t.port(), "/api/v1/alert-receivers", t.admin()).json();
  std::size_t receivers = 0;
  for (const auto& r : receivers_listed["items"]) receivers += r["project"] == h.project;
  CHECK(receivers == 1);
  const json users = http_get(t.port(), "/api/v1/users", t.admin()).json();
  std::set<std::string> names;
  for (const auto& u : users["items"]) names.insert(u["name"]);
  CHECK(names.count(h.auditor) == 1);
  CHECK(names.count("intruder") == 0);
  // The other project's principals asked for a role here for their viewer.
  const json viewer =
      http_get(t.port(),
               "/api/v1/users/" + std::string(h.project == "alpha" ? "beta" : "alpha") + "-viewer",
               t.admin())
          .json();
  CHECK(viewer["roles"].size() == 1);
}

}  // namespace

TEST_CASE("no role in one project sees, exports or acts on another project's anything",
          "[web][projects]") {
  Tenancy t;

  // The table knows every route the service registers.
  std::set<std::pair<std::string, std::string>> known;
  for (const auto& p : Tenancy::probes(t.beta(), "alpha")) known.insert({p.method, p.pattern});
  for (const auto& route : t.server().host().api().router().routes()) {
    const std::string method(boost::beast::http::to_string(route.method));
    INFO("route " << method << " " << route.pattern
                  << " is not in the isolation table: add what it must answer to another project");
    CHECK(known.count({method, route.pattern}) == 1);
  }

  for (const auto& [own, other] : {std::pair<std::string, std::string>{"alpha", "beta"},
                                   std::pair<std::string, std::string>{"beta", "alpha"}}) {
    const Holdings& mine = t.holdings(own);
    const Holdings& theirs = t.holdings(other);
    const auto markers = theirs.markers();
    // The markers are there to be found: an admin of every project sees them.
    const auto everything = http_get(t.port(), "/api/v1/nodes", t.admin());
    REQUIRE(found_marker(everything.body, markers) == theirs.node_id);

    const auto probes = Tenancy::probes(theirs, own);
    for (const auto& who : t.principals(own)) {
      // The credential works: the refusals below are not those of a stranger.
      {
        const auto shown = call(t.server(), "GET", "/api/v1/nodes/" + mine.node_id, {}, who);
        INFO(who.label << " -> " << shown.status << " " << shown.body.substr(0, 300));
        REQUIRE(shown.status == 200);
      }
      for (const auto& probe : probes) {
        if (probe.expect == Expect::skip) continue;
        std::optional<json> body = probe.body;
        if (probe.pattern == "/api/v1/session" && probe.method == "POST")
          body = who.cookie.empty() ? json{{"token", who.token}}
                                    : json{{"username", who.user}, {"password", kPassword}};
        const auto res = call(t.server(), probe.method, probe.target, body, who);
        INFO(who.label << ": " << probe.method << " " << probe.target << " -> " << res.status << " "
                       << res.body.substr(0, 300));
        // An answer may repeat what the caller sent (the path, a name in the body): only the
        // other project's values the caller did not send would be news to it.
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
  }

  check_untouched(t, t.alpha());
  check_untouched(t, t.beta());
}

TEST_CASE("each role does what it may in its own project", "[web][projects]") {
  Tenancy t;
  for (const char* project : {"alpha", "beta"}) {
    const Holdings& h = t.holdings(project);
    const std::string own_node = "/api/v1/nodes/" + h.node_id;
    const std::string other = project == std::string("alpha") ? "beta" : "alpha";
    for (const auto& who : t.principals(project)) {
      INFO(who.label);
      CHECK(call(t.server(), "GET", own_node, {}, who).status == 200);
      const auto listed = call(t.server(), "GET", "/api/v1/nodes", {}, who);
      CHECK(listed.body.find(h.node_name) != std::string::npos);
      CHECK(call(t.server(), "GET", "/api/v1/nodes/summary", {}, who).json()["total"] == 1);
      const auto metrics = call(t.server(), "GET", "/metrics", {}, who);
      CHECK(metrics.body.find(h.node_name) != std::string::npos);

      const bool acts = who.role == "operator" || who.role == "admin";
      const auto power =
          call(t.server(), "POST", own_node + "/power", json{{"action", "off"}}, who);
      CHECK(power.status == (acts ? 202 : 403));

      const bool audits = who.role == "auditor" || who.role == "admin";
      const auto audit = call(t.server(), "GET", "/api/v1/audit?limit=1000", {}, who);
      CHECK(audit.status == (audits ? 200 : 403));
      if (audits) CHECK(audit.body.find(h.node_name) != std::string::npos);
      const auto node_audit = call(t.server(), "GET", own_node + "/audit", {}, who);
      CHECK(node_audit.status == (audits ? 200 : 403));

      // Only an admin of the project moves a node out of it, and only into a project it
      // administers too (a token narrowed to one project administers no other).
      const auto moved = call(t.server(), "PATCH", own_node, json{{"project", other}}, who);
      CHECK((moved.status == 403 || moved.status == 404));
    }
  }
}

namespace {

// A change as the stream says it: its kind and the id of the resource the event's data names.
using Change = std::pair<std::string, std::string>;

Change change_of(const SseEvent& e) {
  const json data = json::parse(e.data, nullptr, false);
  if (!data.is_object() || !data.contains("id")) return {e.type, ""};
  return {e.type, data["id"].is_string() ? data["id"].get<std::string>() : data["id"].dump()};
}

// A change of each kind the stream carries (node, task, alert from a new hardware log entry and
// from an acknowledgement, rollout, cloud account added and deleted), made in the project's
// holdings by the admin of every project; returns them as the stream names them.
std::set<Change> change_everything(Tenancy& t, const Holdings& h) {
  std::set<Change> made;
  REQUIRE(http_send(t.port(), "PATCH", "/api/v1/nodes/" + h.node_id,
                    {{"tags", {{"rack", h.project + "-1"}}}}, t.admin())
              .status == 200);
  made.insert({"node.updated", h.node_id});
  const json task = created(http_send(t.port(), "POST", "/api/v1/nodes/" + h.node_id + "/power",
                                      {{"action", "off"}}, t.admin()));
  made.insert({"task.updated", task["id"]});
  {
    pqxx::connection c(t.server().database().url());
    pqxx::work tx(c);
    tx.exec_params(
        "INSERT INTO events (node_id, node_name, kind, severity, message, source_id) "
        "VALUES ($1::uuid, $2, 'sel', 'warning', 'Fan 3 slow on ' || $2, 'sel-18')",
        h.node_id, h.node_name);
    const auto fired =
        tx.exec_params1("SELECT id::text FROM alerts WHERE node_id = $1::uuid AND id <> $2::bigint",
                        h.node_id, h.alert_id);
    tx.commit();
    made.insert({"alert.updated", fired[0].as<std::string>()});
  }
  created(http_send(t.port(), "POST", "/api/v1/alerts/" + h.alert_id + "/ack", json::object(),
                    t.admin()));
  made.insert({"alert.updated", h.alert_id});
  created(http_send(t.port(), "POST", "/api/v1/firmware/rollouts/" + h.rollout_id + "/pause",
                    json::object(), t.admin()));
  made.insert({"rollout.updated", h.rollout_id});
  const json account =
      created(http_send(t.port(), "POST", "/api/v1/cloud-accounts",
                        {{"name", h.project + "-acct-2"},
                         {"project", h.project},
                         {"provider", "bcc"},
                         {"region", "bj"},
                         {"endpoint", "http://127.0.0.1:9/"},
                         {"credentials", {{"access_key", "ak-2"}, {"secret_key", "sk-2"}}}},
                        t.admin()));
  made.insert({"cloud_account.updated", account["id"]});
  REQUIRE(http_send(t.port(), "DELETE", "/api/v1/cloud-accounts/" + h.account_id, json::object(),
                    t.admin())
              .status < 300);
  made.insert({"cloud_account.deleted", h.account_id});
  return made;
}

struct Watcher {
  Principal who;
  std::unique_ptr<SseClient> stream;
};

std::unique_ptr<SseClient> open_stream(Tenancy& t, const Principal& who) {
  auto stream =
      who.cookie.empty()
          ? std::make_unique<SseClient>(t.port(), "/api/v1/stream", who.token)
          : std::make_unique<SseClient>(t.port(), "/api/v1/stream", std::nullopt,
                                        std::map<std::string, std::string>{{"Cookie", who.cookie}});
  INFO(who.label);
  REQUIRE(stream->status() == 200);
  stream->until_comment("connected");
  return stream;
}

// Reads the stream until every one of `expected` came; returns all that came meanwhile.
std::vector<SseEvent> until_all(SseClient& stream, std::set<Change> expected) {
  return stream.until([&](const SseEvent& e) {
    expected.erase(change_of(e));
    return expected.empty();
  });
}

}  // namespace

TEST_CASE("the change stream carries a project's changes only", "[web][projects]") {
  Tenancy t;
  std::vector<Watcher> watchers;
  for (const char* project : {"alpha", "beta"})
    for (const auto& who : t.principals(project)) watchers.push_back({who, open_stream(t, who)});
  const Principal everyone{"admin of every project", "", "admin", t.admin(), "", "", ""};
  auto everything = open_stream(t, everyone);

  // Beta changes, then alpha, then one more of beta's (a task): once a watcher has all of its
  // own project's changes, the other's would have come before (the stream keeps commit order).
  std::map<std::string, std::set<Change>> made;
  made["beta"] = change_everything(t, t.beta());
  made["alpha"] = change_everything(t, t.alpha());
  const json last =
      created(http_send(t.port(), "POST", "/api/v1/nodes/" + t.beta().node_id + "/power",
                        {{"action", "on"}}, t.admin()));
  made["beta"].insert({"task.updated", last["id"]});

  // The admin of every project sees both projects' changes (so none of them is missing from the
  // stream itself, and the checks below could fail).
  std::set<Change> all = made["alpha"];
  all.insert(made["beta"].begin(), made["beta"].end());
  until_all(*everything, all);

  for (auto& w : watchers) {
    const std::string other = w.who.project == "alpha" ? "beta" : "alpha";
    const auto seen = until_all(*w.stream, made[w.who.project]);
    for (const auto& e : seen) {
      INFO(w.who.label << " got " << e.type << " " << e.data.substr(0, 300));
      CHECK(made[other].count(change_of(e)) == 0);
      CHECK(found_marker(e.data, t.holdings(other).markers()).empty());
      const json data = json::parse(e.data, nullptr, false);
      if (data.is_object() && data.contains("project")) CHECK(data["project"] == w.who.project);
    }
  }

  // A node moved from beta to alpha leaves beta's streams (a deletion) and enters alpha's.
  REQUIRE(http_send(t.port(), "PATCH", "/api/v1/nodes/" + t.beta().node_id, {{"project", "alpha"}},
                    t.admin())
              .status == 200);
  for (auto& w : watchers) {
    INFO(w.who.label);
    const Change moved{w.who.project == "alpha" ? "node.updated" : "node.deleted",
                       t.beta().node_id};
    const auto seen = w.stream->until([&](const SseEvent& e) { return change_of(e) == moved; });
    if (w.who.project == "alpha")
      CHECK(seen.back().data.find("\"project\":\"alpha\"") != std::string::npos);
  }
}

TEST_CASE("metrics show a project's node series to its own principals only", "[web][projects]") {
  // A poller, for the fleet-wide series that only who sees every project gets; nothing answers on
  // its nodes' ports.
  Tenancy t(PollerOptions{});
  {
    pqxx::connection c(t.server().database().url());
    pqxx::work tx(c);
    for (const Holdings* h : {&t.alpha(), &t.beta()})
      tx.exec_params(
          "INSERT INTO sensor_latest (node_id, sensor, kind, value, unit, status, read_at) "
          "VALUES ($1::uuid, 'GPU0 Temp', 'gpu_temperature', 71, 'C', 'ok', now())",
          h->node_id);
    tx.commit();
  }
  // The names of the series labelled with the node's id, each checked to carry its project too.
  auto series_of = [](const std::string& body, const Holdings& h) {
    std::set<std::string> names;
    std::size_t start = 0;
    while (start < body.size()) {
      const std::size_t end = std::min(body.find('\n', start), body.size());
      const std::string line = body.substr(start, end - start);
      start = end + 1;
      if (line.empty() || line[0] == '#') continue;
      if (line.find("node_id=\"" + h.node_id + "\"") == std::string::npos) continue;
      INFO(line);
      CHECK(line.find("project=\"" + h.project + "\"") != std::string::npos);
      names.insert(line.substr(0, line.find('{')));
    }
    return names;
  };
  auto fleet_wide = [](const std::string& body) {
    return body.find("\nironhold_poll") != std::string::npos;
  };

  const auto all = http_get(t.port(), "/metrics", t.admin());
  REQUIRE(all.status == 200);
  const auto alpha_series = series_of(all.body, t.alpha());
  const auto beta_series = series_of(all.body, t.beta());
  CHECK(alpha_series.count("ironhold_node_sensor_max") == 1);
  CHECK(alpha_series.size() >= 2);  // the sensor's, and the node's own gauges
  CHECK(beta_series == alpha_series);
  CHECK(fleet_wide(all.body));

  for (const char* project : {"alpha", "beta"}) {
    const Holdings& mine = t.holdings(project);
    const Holdings& theirs = t.holdings(project == std::string("alpha") ? "beta" : "alpha");
    for (const auto& who : t.principals(project)) {
      INFO(who.label);
      const auto res = call(t.server(), "GET", "/metrics", {}, who);
      REQUIRE(res.status == 200);
      CHECK(series_of(res.body, mine) == alpha_series);
      CHECK(series_of(res.body, theirs).empty());
      CHECK(found_marker(res.body, theirs.markers()).empty());
      CHECK_FALSE(fleet_wide(res.body));
    }
  }
}

TEST_CASE("an export as of a past time shows each project the nodes that were its own then",
          "[web][projects]") {
  Tenancy t;
  const Holdings& beta = t.beta();
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

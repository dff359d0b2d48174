#pragma once
// Two projects, alpha and beta, holding the same kinds of things, and the principals of each (every
// role as a user's token and as a service token, a console session, narrowed tokens): what the
// project isolation tests probe each other with. Shared by project_isolation_test.cpp (every
// route) and project_isolation_views_test.cpp (the stream, /metrics, exports as of a past time).
#include <catch2/catch.hpp>
#include <optional>
#include <pqxx/pqxx>
#include <set>
#include <string>
#include <vector>

#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

namespace project_isolation {

using namespace ironhold::test;
using ironhold::PollerOptions;
using nlohmann::json;

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
inline HttpResult call(TestServer& server, const std::string& method, const std::string& target,
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

inline json created(const HttpResult& res) {
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
        {"GET", "/serial-console", Expect::any, "/serial-console", {}},
        {"GET", "/metrics", Expect::any, "/metrics", {}},
        {"GET", "/api/v1/whoami", Expect::any, "/api/v1/whoami", {}},
        {"GET", "/api/v1/openapi.json", Expect::any, "/api/v1/openapi.json", {}},
        {"POST", "/api/v1/session", Expect::any, "/api/v1/session", {}},  // body: a sign-in
        {"GET", "/api/v1/session", Expect::any, "/api/v1/session", {}},
        // Sign-in through OIDC: open to anyone, about no project (404 without a provider).
        {"GET", "/api/v1/session/providers", Expect::any, "/api/v1/session/providers", {}},
        {"GET", "/api/v1/session/oidc", Expect::any, "/api/v1/session/oidc", {}},
        {"GET", "/api/v1/session/oidc/callback", Expect::any, "/api/v1/session/oidc/callback", {}},
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
        {"POST", "/api/v1/nodes/{id}/bios", Expect::refused, node + "/bios",
         json{{"attributes", {{"SriovGlobalEnable", "Enabled"}}}}},
        {"POST", "/api/v1/nodes/{id}/credentials/rotate", Expect::refused,
         node + "/credentials/rotate", json::object()},
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
        {"GET", "/api/v1/nodes/{id}/bios", Expect::refused, node + "/bios", {}},
        {"GET", "/api/v1/nodes/{id}/sensors", Expect::refused, node + "/sensors", {}},
        {"GET", "/api/v1/nodes/{id}/events", Expect::refused, node + "/events", {}},
        {"GET", "/api/v1/nodes/{id}/audit", Expect::refused, node + "/audit", {}},
        // Without the upgrade: the node is checked first, so another project's is refused.
        {"GET", "/api/v1/nodes/{id}/console", Expect::refused, node + "/console", {}},
        {"GET", "/api/v1/nodes/{id}/console/log", Expect::refused, node + "/console/log", {}},
        {"GET",
         "/api/v1/nodes/{id}/console/sessions",
         Expect::refused,
         node + "/console/sessions",
         {}},
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
        {"POST", "/api/v1/boot-images", Expect::refused, "/api/v1/boot-images", {}},
        {"GET", "/api/v1/boot-images", Expect::any, "/api/v1/boot-images", {}},
        {"GET",
         "/api/v1/boot-images/{id}",
         Expect::refused,
         "/api/v1/boot-images/" + random_id,
         {}},
        {"DELETE",
         "/api/v1/boot-images/{id}",
         Expect::refused,
         "/api/v1/boot-images/" + random_id,
         {}},
        {"POST", "/api/v1/boot-images/{id}/url", Expect::refused,
         "/api/v1/boot-images/" + random_id + "/url", json::object()},
        {"GET",
         "/api/v1/boot-images/{id}/content",
         Expect::no_success,
         "/api/v1/boot-images/" + random_id + "/content",
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
        {"PUT", "/api/v1/bios/baselines/{model}", Expect::refused, "/api/v1/bios/baselines/M-1",
         json{{"attributes", {{"SriovGlobalEnable", "Enabled"}}}}},
        {"GET", "/api/v1/bios/baselines", Expect::any, "/api/v1/bios/baselines", {}},
        {"GET", "/api/v1/bios/baselines/{model}", Expect::any, "/api/v1/bios/baselines/M-1", {}},
        {"DELETE",
         "/api/v1/bios/baselines/{model}",
         Expect::refused,
         "/api/v1/bios/baselines/M-1",
         {}},
        {"GET", "/api/v1/bios/drift", Expect::any, "/api/v1/bios/drift", {}},
        {"GET", "/api/v1/gpu-models", Expect::any, "/api/v1/gpu-models", {}},
        {"GET",
         "/api/v1/gpu-models/{name}",
         Expect::any,
         "/api/v1/gpu-models/NVIDIA%20H100%20SXM5%2080GB",
         {}},
        {"PUT", "/api/v1/gpu-models/{name}", Expect::refused, "/api/v1/gpu-models/G-1",
         json{{"vendor", "V"}, {"family", "F"}, {"model", "M"}, {"form_factor", "PCIe"}}},
        {"DELETE",
         "/api/v1/gpu-models/{name}",
         Expect::refused,
         "/api/v1/gpu-models/NVIDIA%20H100%20SXM5%2080GB",
         {}},
        {"POST", "/api/v1/gpu-models/{name}/aliases", Expect::refused,
         "/api/v1/gpu-models/NVIDIA%20H100%20SXM5%2080GB/aliases", json{{"alias", "X-1"}}},
        {"DELETE",
         "/api/v1/gpu-models/{name}/aliases",
         Expect::refused,
         "/api/v1/gpu-models/NVIDIA%20H100%20SXM5%2080GB/aliases?alias=NVIDIA%20H100%2080GB%20HBM3",
         {}},
        {"GET", "/api/v1/gpu-models/unmapped", Expect::refused, "/api/v1/gpu-models/unmapped", {}},
        // Capacity and cost count the caller's projects only; prices are one list, kept by
        // admins of every project.
        {"GET",
         "/api/v1/capacity",
         Expect::any,
         "/api/v1/capacity?group_by=project,site,model",
         {}},
        {"GET", "/api/v1/cost", Expect::any, "/api/v1/cost?group_by=project,site,model", {}},
        {"GET", "/api/v1/prices", Expect::any, "/api/v1/prices", {}},
        {"POST", "/api/v1/prices/{kind}", Expect::refused, "/api/v1/prices/energy",
         json{{"site", "*"},
              {"effective_from", "2026-01-01T00:00:00Z"},
              {"currency", "USD"},
              {"per_kwh", 0.1}}},
        {"DELETE", "/api/v1/prices/{kind}/{id}", Expect::refused, "/api/v1/prices/energy/1", {}},
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
        {"PATCH", "/api/v1/projects/{name}", Expect::refused, "/api/v1/projects/" + h.project,
         json{{"bmc_password_max_age_days", 1}}},
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
        {"GET",
         "/api/v1/provisioning/config",
         Expect::no_success,
         "/api/v1/provisioning/config",
         {}},
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

inline std::string found_marker(const std::string& body, const std::vector<std::string>& markers) {
  for (const auto& m : markers)
    if (!m.empty() && body.find(m) != std::string::npos) return m;
  return {};
}

}  // namespace project_isolation

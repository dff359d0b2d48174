// Projects keep teams apart. Two projects, alpha and beta, each hold a node, a task, an event and
// its alert, a cloud account, a discovery run, a rollout, an export, a silence, a receiver, users
// and tokens. For every route the service registers, every principal of one project (each role as
// a user's token and as a service token, a console session signed in with a password, and tokens
// of a user of both projects narrowed to one) is tried against the other project's holdings, both
// ways. Nothing of the other project may come back (its names and ids are searched for in every
// answer), what addresses it is refused with 404 or 403, and afterwards it is as it was. A route
// the table below does not know fails the test: a new route is checked here before it ships. The
// change stream and /metrics, which answer with what the caller may see rather than refuse, are
// tested in project_isolation_views_test.cpp.
#include <catch2/catch.hpp>

#include "tests/web/routes/project_isolation_tenancy.hpp"

// This file's names, apart from those of the other test files compiled with it.

// This file's names, apart from those of the other test files compiled with it.
namespace project_isolation_test {

using namespace project_isolation;

namespace {

// What the other project's principals tried left the project's holdings as they were.
void check_untouched(Tenancy& t, const Holdings& h) {
  INFO("the holdings of " << h.project);
  const json node = http_get(t.port(), "/api/v1/nodes/" + h.node_id, t.admin()).json();
  CHECK(node["tags"] == json{{"team", h.project + "-only"}});
  CHECK(node["lifecycle"] == "enrolled");
  CHECK(node["project"] == h.project);
  const json project = http_get(t.port(), "/api/v1/projects/" + h.project, t.admin()).json();
  CHECK(project["bmc_password_max_age_days"].is_null());
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

}  // namespace project_isolation_test

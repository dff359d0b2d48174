// Project isolation where the service answers with what the caller may see instead of refusing:
// the change stream carries each principal its own project's changes of every kind and none of the
// other's (the global admin gets both), /metrics shows a project's node series to its own
// principals only (and the global admin every one, so the check is not vacuous), and an export as
// of a past time shows each project the nodes that were its own then.
#include <catch2/catch.hpp>
#include <set>

#include "tests/support/server/sse_client.hpp"
#include "tests/web/routes/project_isolation_tenancy.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace project_isolation_views_test {

using namespace project_isolation;

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

}  // namespace project_isolation_views_test

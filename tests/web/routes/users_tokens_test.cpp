// People and their tokens over real HTTP: signing in to the console with a name and a password
// (throttled per address and per name, audited), a user's tokens narrowed to one project and one
// role and following the user's roles as they change, a project admin's service tokens, tokens
// refused once expired or revoked, every token and role change in the audit trail, and passwords
// that never appear in an answer or the audit trail.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace users_tokens_test {

using namespace ironhold::test;
using nlohmann::json;

namespace {

const std::string kPassword = "correct horse battery";

HttpResult sign_in(TestServer& server, const json& body) {
  HttpRequest r;
  r.method = "POST";
  r.target = "/api/v1/session";
  r.body = body.dump();
  return http_request(server.port(), r);
}

std::string cookie_of(const HttpResult& res) {
  const std::string set = res.header("set-cookie");
  return set.substr(0, set.find(';'));
}

HttpResult get_with_cookie(TestServer& server, const std::string& target,
                           const std::string& cookie) {
  HttpRequest r;
  r.target = target;
  r.headers["Cookie"] = cookie;
  return http_request(server.port(), r);
}

struct Fleet {
  TestServer server;
  std::string admin = server.token("admin");
  std::string lab_node, prod_node;

  Fleet() {
    for (const char* project : {"lab", "prod"})
      REQUIRE(
          http_send(server.port(), "POST", "/api/v1/projects", {{"name", project}}, admin).status ==
          201);
    lab_node = enroll("lab-01", "lab");
    prod_node = enroll("prod-01", "prod");
  }

  std::string enroll(const std::string& name, const std::string& project) {
    const auto res = http_send(server.port(), "POST", "/api/v1/nodes",
                               {{"name", name},
                                {"project", project},
                                {"driver", "redfish"},
                                {"endpoint", "https://127.0.0.1:9"}},
                               admin);
    REQUIRE(res.status == 201);
    return res.json()["id"];
  }

  void add_user(const std::string& name, const json& roles) {
    const auto res = http_send(server.port(), "POST", "/api/v1/users",
                               {{"name", name}, {"password", kPassword}, {"roles", roles}}, admin);
    INFO(res.body);
    REQUIRE(res.status == 201);
    CHECK(res.body.find(kPassword) == std::string::npos);
  }

  std::string token_for(const std::string& user, const json& extra = json::object()) {
    json body = {{"name", user + "-" + std::to_string(++tokens_)}, {"user", user}};
    body.update(extra);
    const auto res = http_send(server.port(), "POST", "/api/v1/tokens", body, admin);
    INFO(res.body);
    REQUIRE(res.status == 201);
    return res.json()["token"];
  }

  int status(const std::string& method, const std::string& target, const std::string& token,
             const json& body = json::object()) {
    return http_send(server.port(), method, target, body, token).status;
  }

 private:
  int tokens_ = 0;
};

}  // namespace

TEST_CASE("a user signs in to the console with a name and password and acts with their roles",
          "[web][users]") {
  Fleet f;
  f.add_user("ada", {{{"project", "lab"}, {"role", "operator"}}});

  const auto wrong = sign_in(f.server, {{"username", "ada"}, {"password", "not her password"}});
  CHECK(wrong.status == 401);
  CHECK(wrong.header("set-cookie").empty());
  CHECK(sign_in(f.server, {{"username", "nobody"}, {"password", kPassword}}).status == 401);
  CHECK(sign_in(f.server, {{"username", "ada"}}).status == 400);

  const auto ok = sign_in(f.server, {{"username", "ada"}, {"password", kPassword}});
  INFO(ok.body);
  REQUIRE(ok.status == 201);
  const json session = ok.json();
  CHECK(session["name"] == "ada");
  CHECK(session["user"]["name"] == "ada");
  CHECK(session["token"].is_null());
  CHECK(session["role"] == "operator");
  CHECK(session["can"]["act"] == true);
  CHECK(session["can"]["manage"] == false);
  REQUIRE(session["grants"].size() == 1);
  CHECK(session["grants"][0]["project"] == "lab");

  const std::string cookie = cookie_of(ok);
  const auto nodes = get_with_cookie(f.server, "/api/v1/nodes", cookie);
  REQUIRE(nodes.status == 200);
  CHECK(nodes.body.find("lab-01") != std::string::npos);
  CHECK(nodes.body.find("prod-01") == std::string::npos);

  // Changing the password ends her sessions.
  REQUIRE(http_send(f.server.port(), "PUT", "/api/v1/users/ada/password",
                    {{"password", "a brand new password"}}, f.admin)
              .status == 204);
  CHECK(get_with_cookie(f.server, "/api/v1/nodes", cookie).status == 401);
  CHECK(sign_in(f.server, {{"username", "ada"}, {"password", kPassword}}).status == 401);
  CHECK(sign_in(f.server, {{"username", "ada"}, {"password", "a brand new password"}}).status ==
        201);

  // Sign-ins, good and bad, are in the audit trail; the passwords are nowhere in it.
  pqxx::connection c(f.server.database().owner_url());
  pqxx::work tx(c);
  const auto rows = tx.exec(
      "SELECT actor, outcome, details::text FROM audit_log WHERE action = 'session.create' "
      "ORDER BY id");
  int failed = 0, succeeded = 0;
  for (const auto& r : rows) {
    failed += r[1].as<std::string>() == "401";
    succeeded += r[1].as<std::string>() == "201";
  }
  CHECK(failed >= 3);
  CHECK(succeeded == 2);
  const auto leaked = tx.exec_params1(
      "SELECT count(*) FROM audit_log WHERE to_jsonb(audit_log)::text LIKE '%' || $1 || '%' "
      "OR to_jsonb(audit_log)::text LIKE '%' || $2 || '%'",
      kPassword, std::string("a brand new password"));
  CHECK(leaked[0].as<int>() == 0);
}

TEST_CASE("failed sign-ins are counted per address and per user name", "[web][users]") {
  Fleet f;
  f.add_user("bob", {{{"project", "lab"}, {"role", "viewer"}}});
  HttpResult last;
  for (int i = 0; i < 6; ++i)
    last =
        sign_in(f.server, {{"username", "bob"}, {"password", "guess number " + std::to_string(i)}});
  CHECK(last.status == 429);
  CHECK_FALSE(last.header("retry-after").empty());
  // The right password is refused too while blocked.
  CHECK(sign_in(f.server, {{"username", "bob"}, {"password", kPassword}}).status == 429);

  pqxx::connection c(f.server.database().owner_url());
  pqxx::work tx(c);
  std::set<std::string> sources;
  for (const auto& r : tx.exec("SELECT source FROM sign_in_failures WHERE blocked_until > now()"))
    sources.insert(r[0].as<std::string>());
  CHECK(sources.count("user:bob") == 1);
  CHECK(sources.count("peer:127.0.0.1") == 1);
}

TEST_CASE("a user's token narrows their roles and follows them as they change", "[web][users]") {
  Fleet f;
  f.add_user("cy", {{{"project", "lab"}, {"role", "operator"}},
                    {{"project", "prod"}, {"role", "operator"}}});
  const std::string all = f.token_for("cy");
  const std::string lab_only = f.token_for("cy", {{"project", "lab"}});
  const std::string read_only = f.token_for("cy", {{"role", "viewer"}});
  const std::string lab_node = "/api/v1/nodes/" + f.lab_node;
  const std::string prod_node = "/api/v1/nodes/" + f.prod_node;

  CHECK(f.status("GET", prod_node, all) == 200);
  CHECK(f.status("GET", prod_node, lab_only) == 404);
  CHECK(f.status("GET", lab_node, lab_only) == 200);
  CHECK(f.status("POST", lab_node + "/power", lab_only, {{"action", "off"}}) == 202);
  CHECK(f.status("GET", prod_node, read_only) == 200);
  CHECK(f.status("POST", prod_node + "/power", read_only, {{"action", "off"}}) == 403);

  // A token cannot widen: admin asked, operator held.
  const std::string wider = f.token_for("cy", {{"role", "admin"}, {"project", "lab"}});
  CHECK(f.status("DELETE", lab_node + "?purge=true", wider) == 403);

  // Revoking her prod role takes effect on the tokens she already has.
  REQUIRE(f.status("DELETE", "/api/v1/users/cy/roles/operator?project=prod", f.admin) == 200);
  CHECK(f.status("GET", prod_node, all) == 404);
  CHECK(f.status("GET", lab_node, all) == 200);

  // Her own token, through her own credentials: "me".
  const auto mine = http_send(f.server.port(), "POST", "/api/v1/tokens",
                              {{"name", "cy-ci"},
                               {"user", "me"},
                               {"role", "viewer"},
                               {"expires_at", "2099-01-01T00:00:00Z"}},
                              all);
  INFO(mine.body);
  REQUIRE(mine.status == 201);
  CHECK(mine.json()["user"] == "cy");
  CHECK(mine.json()["expires_at"].get<std::string>().rfind("2099-01-01T00:00:00", 0) == 0);
  const auto listed = http_get(f.server.port(), "/api/v1/tokens", all).json();
  for (const auto& t : listed["items"]) CHECK(t["user"] == "cy");
  // Not for someone else, not a service token without a project she administers.
  CHECK(f.status("POST", "/api/v1/tokens", all, {{"name", "x"}, {"user", "admin-1"}}) == 403);
  CHECK(f.status("POST", "/api/v1/tokens", all,
                 {{"name", "x"}, {"role", "viewer"}, {"project", "lab"}}) == 403);
  CHECK(f.status("POST", "/api/v1/tokens", all,
                 {{"name", "x"}, {"user", "me"}, {"expires_at", "2001-01-01T00:00:00Z"}}) == 422);

  // Removing the user ends every token of hers.
  REQUIRE(f.status("DELETE", "/api/v1/users/cy", f.admin) == 204);
  CHECK(f.status("GET", lab_node, all) == 401);
  CHECK(f.status("GET", lab_node, lab_only) == 401);
}

TEST_CASE("a project's admin makes and revokes its service tokens, and only those",
          "[web][users]") {
  Fleet f;
  f.add_user("dee", {{{"project", "lab"}, {"role", "admin"}}});
  const std::string dee = f.token_for("dee");
  const auto made = http_send(f.server.port(), "POST", "/api/v1/tokens",
                              {{"name", "lab-ci"}, {"role", "operator"}, {"project", "lab"}}, dee);
  INFO(made.body);
  REQUIRE(made.status == 201);
  const std::string ci = made.json()["token"];
  CHECK(f.status("POST", "/api/v1/nodes/" + f.lab_node + "/power", ci, {{"action", "on"}}) == 202);
  CHECK(f.status("GET", "/api/v1/nodes/" + f.prod_node, ci) == 404);
  CHECK(f.status("POST", "/api/v1/tokens", dee,
                 {{"name", "prod-ci"}, {"role", "operator"}, {"project", "prod"}}) == 403);
  CHECK(f.status("POST", "/api/v1/tokens", dee, {{"name", "all-ci"}, {"role", "viewer"}}) == 403);

  const auto prod =
      http_send(f.server.port(), "POST", "/api/v1/tokens",
                {{"name", "prod-ci"}, {"role", "viewer"}, {"project", "prod"}}, f.admin);
  REQUIRE(prod.status == 201);
  CHECK(f.status("DELETE", "/api/v1/tokens/" + std::string(prod.json()["id"]), dee) == 404);
  CHECK(f.status("DELETE", "/api/v1/tokens/lab-ci", dee) == 204);
  CHECK(f.status("GET", "/api/v1/nodes", ci) == 401);

  // Users are for an admin of every project.
  CHECK(f.status("GET", "/api/v1/users", dee) == 403);
  CHECK(f.status("POST", "/api/v1/users/dee/roles", dee,
                 {{"project", "prod"}, {"role", "admin"}}) == 403);
}

TEST_CASE("a person changes their own password with the current one", "[web][users]") {
  Fleet f;
  f.add_user("eve", {{{"project", "lab"}, {"role", "viewer"}}});
  const std::string eve = f.token_for("eve");
  CHECK(f.status("PUT", "/api/v1/users/me/password", eve, {{"password", "a second password"}}) ==
        400);
  CHECK(f.status("PUT", "/api/v1/users/me/password", eve,
                 {{"password", "a second password"}, {"current_password", "wrong wrong"}}) == 403);
  CHECK(f.status("PUT", "/api/v1/users/me/password", eve,
                 {{"password", "short"}, {"current_password", kPassword}}) == 422);
  CHECK(f.status("PUT", "/api/v1/users/me/password", eve,
                 {{"password", "a second password"}, {"current_password", kPassword}}) == 204);
  CHECK(sign_in(f.server, {{"username", "eve"}, {"password", "a second password"}}).status == 201);
  // Not someone else's.
  f.add_user("fay", {{{"project", "lab"}, {"role", "viewer"}}});
  CHECK(f.status("PUT", "/api/v1/users/fay/password", eve,
                 {{
                      "password",
                      "taken over now",
                  },
                  {"current_password", "a second password"}}) == 403);
}

TEST_CASE("a token is refused once it has expired, and once it is revoked through the API",
          "[web][users][tokens]") {
  Fleet f;
  const auto made = http_send(
      f.server.port(), "POST", "/api/v1/tokens",
      {{"name", "short-lived"}, {"role", "viewer"}, {"expires_at", "2099-01-01T00:00:00Z"}},
      f.admin);
  INFO(made.body);
  REQUIRE(made.status == 201);
  const std::string expiring = made.json()["token"];
  const std::string expiring_id = made.json()["id"];
  const auto kept = http_send(
      f.server.port(), "POST", "/api/v1/tokens",
      {{"name", "still-valid"}, {"role", "viewer"}, {"expires_at", "2099-01-01T00:00:00Z"}},
      f.admin);
  REQUIRE(kept.status == 201);
  const std::string still_valid = kept.json()["token"];

  CHECK(f.status("GET", "/api/v1/nodes", expiring) == 200);
  // Its expiry passes: moved into the past in the database, as time would move it.
  f.server.database().execute(
      "UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = '" + expiring_id +
      "'");
  CHECK(f.status("GET", "/api/v1/nodes", expiring) == 401);
  CHECK(f.status("GET", "/api/v1/nodes/" + f.lab_node, expiring) == 401);
  CHECK(f.status("POST", "/api/v1/tokens", expiring,
                 {{"name", "renewed"}, {"role", "viewer"}, {"project", "lab"}}) == 401);
  CHECK(f.status("GET", "/api/v1/nodes", still_valid) == 200);

  // Revoked by an admin, by id: refused from the next request on.
  const auto other = http_send(f.server.port(), "POST", "/api/v1/tokens",
                               {{"name", "to-revoke"}, {"role", "operator"}}, f.admin);
  REQUIRE(other.status == 201);
  const std::string revoked = other.json()["token"];
  const std::string revoked_id = other.json()["id"];
  CHECK(f.status("GET", "/api/v1/nodes", revoked) == 200);
  REQUIRE(f.status("DELETE", "/api/v1/tokens/" + revoked_id, f.admin) == 204);
  CHECK(f.status("GET", "/api/v1/nodes", revoked) == 401);
  CHECK(f.status("POST", "/api/v1/nodes/" + f.lab_node + "/power", revoked, {{"action", "off"}}) ==
        401);
  CHECK(f.status("DELETE", "/api/v1/tokens/" + revoked_id, f.admin) == 404);
  CHECK(f.status("GET", "/api/v1/nodes", still_valid) == 200);
}

TEST_CASE("token and role changes through the API are audit entries naming who, what and whom",
          "[web][users][tokens][audit]") {
  Fleet f;
  f.add_user("gus", {{{"project", "lab"}, {"role", "viewer"}}});
  const auto gus = http_get(f.server.port(), "/api/v1/users/gus", f.admin);
  REQUIRE(gus.status == 200);
  const std::string gus_id = gus.json()["id"];

  REQUIRE(f.status("POST", "/api/v1/users/gus/roles", f.admin,
                   {{"project", "prod"}, {"role", "operator"}}) == 200);
  REQUIRE(f.status("DELETE", "/api/v1/users/gus/roles/viewer?project=lab", f.admin) == 200);
  // Refused, and audited all the same.
  f.add_user("hal", {{{"project", "lab"}, {"role", "admin"}}});
  const std::string hal = f.token_for("hal");
  CHECK(f.status("POST", "/api/v1/users/gus/roles", hal,
                 {{"project", nullptr}, {"role", "admin"}}) == 403);

  const auto made = http_send(f.server.port(), "POST", "/api/v1/tokens",
                              {{"name", "gus-ci"}, {"user", "gus"}, {"project", "prod"}}, f.admin);
  INFO(made.body);
  REQUIRE(made.status == 201);
  const std::string secret = made.json()["token"];
  const std::string token_id = made.json()["id"];
  REQUIRE(f.status("DELETE", "/api/v1/tokens/gus-ci", f.admin) == 204);

  pqxx::connection c(f.server.database().owner_url());
  pqxx::work tx(c);
  // The one entry of that action on that target, as its columns hold it.
  auto entry = [&](const std::string& action, const std::string& target_id) {
    const auto rows = tx.exec_params(
        "SELECT actor, coalesce(target_type, ''), coalesce(target_name, ''), outcome, "
        "coalesce(project, ''), details::text FROM audit_log WHERE action = $1 AND target_id = $2",
        action, target_id);
    INFO(action);
    REQUIRE(rows.size() == 1);
    std::vector<std::string> out;
    for (int i = 0; i < 5; ++i) out.push_back(rows[0][i].as<std::string>());
    out.push_back(json::parse(rows[0][5].as<std::string>()).dump());
    return out;
  };
  using Row = std::vector<std::string>;
  CHECK(entry("POST /api/v1/users/{name}/roles", gus_id) ==
        Row{"admin-1", "user", "gus", "200", "prod",
            json({{"project", "prod"}, {"role", "operator"}}).dump()});
  CHECK(entry("DELETE /api/v1/users/{name}/roles/{role}", gus_id) ==
        Row{"admin-1", "user", "gus", "200", "lab",
            json({{"project", "lab"}, {"role", "viewer"}}).dump()});
  CHECK(entry("POST /api/v1/tokens", token_id) ==
        Row{"admin-1", "token", "gus-ci", "201", "prod",
            json({{"role", nullptr}, {"project", "prod"}, {"user", "gus"}, {"expires_at", nullptr}})
                .dump()});
  CHECK(entry("DELETE /api/v1/tokens/{id}", token_id) ==
        Row{"admin-1", "token", "gus-ci", "204", "prod", "{}"});
  const auto refused = tx.exec(
      "SELECT actor FROM audit_log WHERE action = 'POST /api/v1/users/{name}/roles' "
      "AND outcome = '403'");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0][0].as<std::string>() == "hal");

  // The token's secret is in its one answer, nowhere in the trail.
  const auto leaked = tx.exec_params1(
      "SELECT count(*) FROM audit_log WHERE to_jsonb(audit_log)::text LIKE '%' || $1 || '%'",
      secret);
  CHECK(leaked[0].as<int>() == 0);
}

}  // namespace users_tokens_test

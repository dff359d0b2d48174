// The console's sign-in over real HTTP: a token traded for an HttpOnly, SameSite=Strict session
// cookie that works like the token, changes refused without the session's CSRF token, sign-out,
// and the ways a session ends (token revoked, idle, past its end) — each checked against what the
// browser would send.
#include <catch2/catch.hpp>

#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace session_test {

using namespace ironhold::test;
using nlohmann::json;

namespace {

struct SignedIn {
  std::string cookie;  // "ironhold_session=..." as a browser sends it back
  std::string set_cookie;
  json body;
};

HttpResult sign_in(TestServer& server, const std::string& token,
                   std::map<std::string, std::string> headers = {}) {
  HttpRequest r;
  r.method = "POST";
  r.target = "/api/v1/session";
  r.body = json{{"token", token}}.dump();
  r.headers = std::move(headers);
  return http_request(server.port(), r);
}

SignedIn signed_in(TestServer& server, const std::string& role) {
  const auto res = sign_in(server, server.token(role));
  INFO(res.body);
  REQUIRE(res.status == 201);
  SignedIn out;
  out.set_cookie = res.header("set-cookie");
  out.cookie = out.set_cookie.substr(0, out.set_cookie.find(';'));
  out.body = res.json();
  return out;
}

// A request as the console makes it: the cookie, and the CSRF token when it is given.
HttpResult with_cookie(TestServer& server, const std::string& method, const std::string& target,
                       const std::string& cookie, const std::optional<std::string>& csrf = {},
                       const json& body = nullptr) {
  HttpRequest r;
  r.method = method;
  r.target = target;
  if (!body.is_null()) r.body = body.dump();
  r.headers["Cookie"] = "theme=dark; " + cookie + "; other=1";
  if (csrf) r.headers["X-CSRF-Token"] = *csrf;
  return http_request(server.port(), r);
}

json new_node(const std::string& name) {
  return {{"name", name},
          {"driver", "redfish"},
          {"endpoint", "https://127.0.0.9:1"},
          {"credentials", {{"username", "u"}, {"password", "p"}}}};
}

}  // namespace

TEST_CASE("a token signs the console in with a cookie scripts in the page cannot read",
          "[web][session]") {
  TestServer server;
  const SignedIn s = signed_in(server, "operator");
  const std::string& set_cookie = s.set_cookie;
  CHECK(set_cookie.rfind("ironhold_session=ihs_", 0) == 0);
  CHECK(set_cookie.find("; HttpOnly") != std::string::npos);
  CHECK(set_cookie.find("; SameSite=Strict") != std::string::npos);
  CHECK(set_cookie.find("; Path=/") != std::string::npos);
  CHECK(set_cookie.find("Max-Age=43200") != std::string::npos);
  CHECK(set_cookie.find("Secure") == std::string::npos);  // plain HTTP here
  CHECK(s.body["role"] == "operator");
  CHECK(s.body["via"] == "session");
  const std::string csrf = s.body["csrf_token"];
  CHECK(csrf.size() >= 32);

  // The database keeps neither the cookie's secret nor anything that contains it.
  const std::string secret = s.cookie.substr(s.cookie.find('=') + 1);
  const std::string rows = server.database().execute(
      "SELECT string_agg(row_to_json(c)::text, ' ') FROM console_sessions c");
  CHECK(rows.find(secret) == std::string::npos);
  CHECK(rows.find(secret.substr(4, 20)) == std::string::npos);

  // The cookie reads like the token, and the session says who it is.
  CHECK(with_cookie(server, "GET", "/api/v1/nodes", s.cookie).status == 200);
  const auto me = with_cookie(server, "GET", "/api/v1/session", s.cookie);
  REQUIRE(me.status == 200);
  CHECK(me.json()["csrf_token"] == csrf);
  CHECK(me.json()["token"]["name"] == s.body["token"]["name"]);

  // Over TLS (as a terminating proxy reports it) the cookie is Secure.
  const auto proxied = sign_in(server, server.token("viewer"), {{"X-Forwarded-Proto", "https"}});
  REQUIRE(proxied.status == 201);
  CHECK(proxied.header("set-cookie").find("; Secure") != std::string::npos);
}

TEST_CASE("a change made with the session cookie needs the session's CSRF token",
          "[web][session]") {
  TestServer server;
  const SignedIn s = signed_in(server, "operator");
  const std::string csrf = s.body["csrf_token"];

  const auto without = with_cookie(server, "POST", "/api/v1/nodes", s.cookie, {}, new_node("a"));
  CHECK(without.status == 403);
  CHECK(without.body.find("X-CSRF-Token") != std::string::npos);
  std::string wrong = csrf;
  wrong.back() = wrong.back() == 'A' ? 'B' : 'A';
  CHECK(with_cookie(server, "POST", "/api/v1/nodes", s.cookie, wrong, new_node("a")).status == 403);
  CHECK(with_cookie(server, "POST", "/api/v1/nodes", s.cookie, "", new_node("a")).status == 403);
  // Another session's token does not do either.
  const SignedIn other = signed_in(server, "operator");
  CHECK(with_cookie(server, "POST", "/api/v1/nodes", s.cookie,
                    other.body["csrf_token"].get<std::string>(), new_node("a"))
            .status == 403);
  const json nodes = http_get(server.port(), "/api/v1/nodes", server.token("viewer")).json();
  CHECK(nodes["items"].empty());

  const auto made = with_cookie(server, "POST", "/api/v1/nodes", s.cookie, csrf, new_node("a"));
  INFO(made.body);
  CHECK(made.status == 201);
  // The audit trail names the token the session acts as.
  const json audit =
      http_get(server.port(), "/api/v1/audit?limit=20", server.token("auditor")).json();
  bool found = false;
  for (const auto& entry : audit["items"])
    if (entry["action"] == "POST /api/v1/nodes" && entry["outcome"] == "201")
      found = entry["actor"] == s.body["token"]["name"];
  CHECK(found);

  // A viewer's session may not change anything, CSRF token or not.
  const SignedIn viewer = signed_in(server, "viewer");
  CHECK(with_cookie(server, "POST", "/api/v1/nodes", viewer.cookie,
                    viewer.body["csrf_token"].get<std::string>(), new_node("b"))
            .status == 403);
}

TEST_CASE("bad sign-ins are refused and recorded, Bearer tokens work as before", "[web][session]") {
  TestServer server;
  const auto bad = sign_in(server, "ih_not-a-real-token");
  CHECK(bad.status == 401);
  CHECK(bad.header("set-cookie").empty());
  HttpRequest form;
  form.method = "POST";
  form.target = "/api/v1/session";
  form.content_type = "application/x-www-form-urlencoded";  // what another site's form sends
  form.body = "token=" + server.token("admin");
  CHECK(http_request(server.port(), form).status == 415);
  CHECK(http_send(server.port(), "POST", "/api/v1/session", json{{"token", 5}}, std::nullopt)
            .status == 400);
  CHECK(http_send(server.port(), "POST", "/api/v1/session", json::object(), std::nullopt).status ==
        400);
  const json audit =
      http_get(server.port(), "/api/v1/audit?limit=50", server.token("auditor")).json();
  int failed = 0;
  for (const auto& entry : audit["items"])
    if (entry["action"] == "session.create" && entry["outcome"] == "401") ++failed;
  CHECK(failed == 1);

  // A made-up cookie is no session.
  CHECK(with_cookie(server, "GET", "/api/v1/nodes", "ironhold_session=ihs_" + std::string(43, 'x'))
            .status == 401);
  // With a token, the session route says so; there is nothing to sign out.
  const std::string token = server.token("operator");
  const json me = http_get(server.port(), "/api/v1/session", token).json();
  CHECK(me["via"] == "token");
  CHECK(me["csrf_token"].is_null());
  CHECK(http_send(server.port(), "DELETE", "/api/v1/session", nullptr, token).status == 409);
  // Bearer wins over a cookie, and needs no CSRF token.
  const SignedIn viewer = signed_in(server, "viewer");
  HttpRequest both;
  both.method = "POST";
  both.target = "/api/v1/nodes";
  both.body = new_node("c").dump();
  both.token = token;
  both.headers["Cookie"] = viewer.cookie;
  CHECK(http_request(server.port(), both).status == 201);
}

TEST_CASE("a session ends when signed out, when its token is revoked, idle, or past its end",
          "[web][session]") {
  TestServer server;
  const SignedIn out = signed_in(server, "operator");
  const auto signed_out = with_cookie(server, "DELETE", "/api/v1/session", out.cookie,
                                      out.body["csrf_token"].get<std::string>());
  CHECK(signed_out.status == 204);
  CHECK(signed_out.header("set-cookie").find("Max-Age=0") != std::string::npos);
  const auto after = with_cookie(server, "GET", "/api/v1/nodes", out.cookie);
  CHECK(after.status == 401);
  CHECK(after.body.find("sign in again") != std::string::npos);

  const SignedIn revoked = signed_in(server, "operator");
  REQUIRE(http_send(server.port(), "DELETE",
                    "/api/v1/tokens/" + revoked.body["token"]["id"].get<std::string>(), nullptr,
                    server.token("admin"))
              .status == 204);
  CHECK(with_cookie(server, "GET", "/api/v1/nodes", revoked.cookie).status == 401);

  const SignedIn idle = signed_in(server, "viewer");
  const SignedIn old = signed_in(server, "viewer");
  const SignedIn fresh = signed_in(server, "viewer");
  server.database().execute(
      "UPDATE console_sessions SET last_seen_at = now() - interval '3 hours' WHERE csrf_token = '" +
      idle.body["csrf_token"].get<std::string>() + "'");
  server.database().execute(
      "UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE csrf_token = '" +
      old.body["csrf_token"].get<std::string>() + "'");
  CHECK(with_cookie(server, "GET", "/api/v1/nodes", idle.cookie).status == 401);
  CHECK(with_cookie(server, "GET", "/api/v1/nodes", old.cookie).status == 401);
  CHECK(with_cookie(server, "GET", "/api/v1/nodes", fresh.cookie).status == 200);
}

}  // namespace session_test

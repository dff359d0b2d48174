// Signing in through an OpenID Connect provider: the test runs the issuer (`ironhold sim oidc`'s
// OidcIssuer, in this process, on its own loopback port) and plays the browser itself, following
// each redirect by hand so that every step is seen: the authorization request (PKCE S256, state,
// nonce), the provider's sign-in form, the callback, and the session cookie it gives. The issuer
// checks the PKCE verifier at its token endpoint, so a sign-in that finishes proves the service
// sent a verifier that matches the challenge it announced. Scripts' Bearer JWTs are checked
// against the issuer's published keys: tokens from its token endpoint, tokens it mints expired or
// for another audience, a key rotation, and a token signed by the openssl tool with a key the
// issuer never published.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/url/parse.hpp>
#include <catch2/catch.hpp>
#include <thread>

#include "sim/oidc/oidc_issuer.hpp"
#include "tests/support/openssl_jws.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "web/auth/oidc_config.hpp"

namespace oidc_sign_in_test {

using namespace ironhold;
using namespace ironhold::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using nlohmann::json;

namespace {

// The issuer on a thread of its own.
struct Issuer {
  boost::asio::io_context io;
  sim::oidc::OidcIssuer issuer;
  unsigned short port = 0;
  std::thread thread;

  explicit Issuer(sim::oidc::OidcIssuerOptions options) : issuer(io, std::move(options)) {
    port = issuer.listen({boost::asio::ip::make_address("127.0.0.1"), 0}).port();
    thread = std::thread([this] { io.run(); });
  }
  ~Issuer() {
    issuer.close();
    io.stop();
    thread.join();
  }
};

// "a=1&b=2" of a URL, decoded.
std::map<std::string, std::string> query_of(const std::string& url) {
  const auto parsed = boost::urls::parse_uri_reference(url);
  REQUIRE(parsed);
  std::map<std::string, std::string> out;
  for (auto param : parsed->params()) out[param.key] = param.value;
  return out;
}

std::string path_and_query(const std::string& url) {
  const auto parsed = boost::urls::parse_uri_reference(url);
  REQUIRE(parsed);
  return std::string(parsed->encoded_target());
}

// The value of cookie `name` among a response's Set-Cookie lines ("" when it sets none).
std::string set_cookie(const HttpResult& res, const std::string& name) {
  std::istringstream lines(res.header("set-cookie"));
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with(name + "="))
      return line.substr(name.size() + 1, line.find(';') - name.size() - 1);
  return "";
}

std::string form(const std::map<std::string, std::string>& fields) {
  std::string out;
  for (const auto& [k, v] : fields) out += (out.empty() ? "" : "&") + k + "=" + url_encode(v);
  return out;
}

sim::oidc::OidcIssuerOptions issuer_options(const std::string& alg) {
  sim::oidc::OidcIssuerOptions o;
  o.client_id = "ironhold";
  o.client_secret = "client-secret";
  o.alg = alg;
  return o;
}

struct Fixture {
  Issuer idp;
  TestServer server;
  std::string admin = server.token("admin");
  std::string issuer = idp.issuer.issuer();
  std::string callback = server.url() + "/api/v1/session/oidc/callback";

  explicit Fixture(json extra = json::object(), const std::string& alg = "ES256")
      : idp(issuer_options(alg)) {
    REQUIRE(http_send(server.port(), "POST", "/api/v1/projects", {{"name", "research"}}, admin)
                .status == 201);
    json settings = {{"issuer", issuer},
                     {"client_id", "ironhold"},
                     {"client_secret", "client-secret"},
                     {"redirect_uri", callback},
                     {"scopes", {"openid", "profile", "email", "groups"}},
                     {"allow_plain_http", true},
                     {"key_refetch_interval_s", 0},
                     {"label", "Sign in with the test IdP"}};
    settings.update(extra);
    const auto roles = parse_role_mappings(
        json::array({{{"value", "gpu-ops"}, {"project", "research"}, {"role", "operator"}},
                     {{"value", "auditors"}, {"project", "research"}, {"role", "auditor"}},
                     {{"value", "fleet-admins"}, {"project", nullptr}, {"role", "admin"}}}),
        "oidc.roles", "value");
    server.host().use_oidc(web::auth::parse_oidc_config(settings), roles);
  }

  // GET /api/v1/session/oidc: the redirect to the provider, and the state cookie.
  HttpResult begin(const std::string& return_to = "/#/nodes") {
    return http_get(server.port(), "/api/v1/session/oidc?return_to=" + url_encode(return_to),
                    std::nullopt);
  }

  // The person at the provider's form: GET it, then POST the name and password with its hidden
  // fields (the authorization request's parameters).
  HttpResult at_provider(const std::string& authorize_url, const std::string& user,
                         const std::string& password, bool deny = false) {
    const auto page = http_get(idp.port, path_and_query(authorize_url), std::nullopt);
    REQUIRE(page.status == 200);
    CHECK_THAT(page.body, Contains("name=\"password\""));
    auto fields = query_of(authorize_url);
    fields["username"] = user;
    fields["password"] = password;
    if (deny) fields["deny"] = "1";
    HttpRequest post;
    post.method = "POST";
    post.target = "/authorize";
    post.content_type = "application/x-www-form-urlencoded";
    post.body = form(fields);
    return http_request(idp.port, post);
  }

  HttpResult come_back(const std::string& location, const std::string& state_cookie) {
    REQUIRE_THAT(location, StartsWith(callback));
    HttpRequest r;
    r.target = path_and_query(location);
    if (!state_cookie.empty()) r.headers["Cookie"] = "ironhold_oidc=" + state_cookie;
    return http_request(server.port(), r);
  }

  // The whole sign-in of `user`; returns the callback's answer.
  HttpResult sign_in(const std::string& user, const std::string& password) {
    const auto started = begin();
    REQUIRE(started.status == 302);
    const auto at = at_provider(started.header("location"), user, password);
    REQUIRE(at.status == 302);
    return come_back(at.header("location"), set_cookie(started, "ironhold_oidc"));
  }

  json session_of(const HttpResult& signed_in) {
    HttpRequest r;
    r.target = "/api/v1/session";
    r.headers["Cookie"] = "ironhold_session=" + set_cookie(signed_in, "ironhold_session");
    const auto res = http_request(server.port(), r);
    REQUIRE(res.status == 200);
    return res.json();
  }

  json sign_in_audit() {
    return http_get(server.port(), "/api/v1/audit?action=session.create", admin).json()["items"];
  }
};

// The grants of a session as {project, capabilities} pairs, for comparison.
std::set<std::pair<std::string, std::string>> grants_of(const json& session) {
  std::set<std::pair<std::string, std::string>> out;
  for (const auto& g : session["grants"])
    for (const auto& c : g["capabilities"])
      out.insert(
          {g["project"].is_null() ? "*" : g["project"].get<std::string>(), c.get<std::string>()});
  return out;
}

}  // namespace

TEST_CASE("the console signs in through the OIDC provider with PKCE, roles from its claim",
          "[oidc][session]") {
  Fixture f;

  const auto providers = http_get(f.server.port(), "/api/v1/session/providers", std::nullopt);
  REQUIRE(providers.status == 200);
  CHECK(providers.json()["oidc"]["label"] == "Sign in with the test IdP");
  CHECK(providers.json()["oidc"]["start"] == "/api/v1/session/oidc");
  CHECK(providers.json()["ldap"] == false);

  // The authorization request, as RFC 6749 §4.1.1, RFC 7636 §4.3 and OIDC Core §3.1.2.1 spell it.
  const auto started = f.begin();
  REQUIRE(started.status == 302);
  const std::string authorize = started.header("location");
  CHECK_THAT(authorize, StartsWith(f.issuer + "/authorize?"));
  auto asked = query_of(authorize);
  CHECK(asked["response_type"] == "code");
  CHECK(asked["client_id"] == "ironhold");
  CHECK(asked["redirect_uri"] == f.callback);
  CHECK(asked["scope"] == "openid profile email groups");
  CHECK(asked["code_challenge_method"] == "S256");
  CHECK(asked["code_challenge"].size() == 43);  // BASE64URL of a SHA-256
  CHECK(asked["state"].size() >= 43);
  CHECK(asked["nonce"].size() >= 32);
  const std::string state_cookie = set_cookie(started, "ironhold_oidc");
  CHECK(state_cookie == asked["state"]);
  CHECK_THAT(started.header("set-cookie"), Contains("HttpOnly") && Contains("SameSite=Lax"));
  // A second sign-in gets its own state, challenge and nonce.
  auto other = query_of(f.begin().header("location"));
  CHECK(other["state"] != asked["state"]);
  CHECK(other["code_challenge"] != asked["code_challenge"]);
  CHECK(other["nonce"] != asked["nonce"]);

  SECTION("alice signs in and gets the roles her groups map to") {
    const auto at = f.at_provider(authorize, "alice", "alice-oidc");
    REQUIRE(at.status == 302);
    const auto back = f.come_back(at.header("location"), state_cookie);
    REQUIRE(back.status == 303);
    CHECK(back.header("location") == "/#/nodes");
    REQUIRE_FALSE(set_cookie(back, "ironhold_session").empty());
    CHECK(set_cookie(back, "ironhold_oidc").empty());  // the state cookie is cleared
    const json session = f.session_of(back);
    CHECK(session["name"] == "alice");
    CHECK(session["via"] == "session");
    // gpu-ops → operator in research, auditors → auditor in research.
    const auto grants = grants_of(session);
    CHECK(grants.count({"research", "act"}) == 1);
    CHECK(grants.count({"research", "audit"}) == 1);
    CHECK(grants.count({"*", "read"}) == 0);

    // The user is an OIDC user named by issuer and subject, whose password cannot be set here.
    const auto users = http_get(f.server.port(), "/api/v1/users", f.admin).json()["items"];
    const auto alice = std::find_if(users.begin(), users.end(),
                                    [](const json& u) { return u["name"] == "alice"; });
    REQUIRE(alice != users.end());
    CHECK((*alice)["source"] == "oidc");
    CHECK((*alice)["external_id"] == f.issuer + " sub-alice");

    // The same answer again (a replayed callback) finds its sign-in spent.
    const auto replay = f.come_back(at.header("location"), state_cookie);
    REQUIRE(replay.status == 303);
    CHECK_THAT(replay.header("location"), StartsWith("/?sign_in_error="));
    CHECK_THAT(replay.header("location"), Contains("already%20used"));

    const auto audit = f.sign_in_audit();
    const auto ok = std::find_if(audit.begin(), audit.end(), [](const json& e) {
      return e["details"]["via"] == "oidc" && e["outcome"] == "201";
    });
    REQUIRE(ok != audit.end());
    CHECK((*ok)["actor"] == "alice");
    CHECK((*ok)["details"]["directory"]["subject"] == "sub-alice");
    CHECK((*ok)["details"]["directory"]["roles"] == json::array({"gpu-ops", "auditors"}));
    CHECK((*ok)["details"]["directory"]["first_sign_in"] == true);
  }

  SECTION("bob's group makes him an admin everywhere; carol, in no mapped group, gets nothing") {
    const json bob = f.session_of(f.sign_in("bob", "bob-oidc"));
    CHECK(bob["role"] == "admin");
    CHECK(bob["can"]["manage_everything"] == true);
    const auto carol_back = f.sign_in("carol", "carol-oidc");
    REQUIRE(carol_back.status == 303);
    const json carol = f.session_of(carol_back);
    CHECK(carol["name"] == "carol");
    CHECK(carol["grants"].empty());
    CHECK(carol["can"]["read"] == false);
  }

  SECTION("a callback in a browser that did not begin the sign-in is refused") {
    const auto at = f.at_provider(authorize, "alice", "alice-oidc");
    REQUIRE(at.status == 302);
    const auto no_cookie = f.come_back(at.header("location"), "");
    CHECK_THAT(no_cookie.header("location"), Contains("not%20begun%20in%20this%20browser"));
    CHECK(set_cookie(no_cookie, "ironhold_session").empty());
    // The state is spent by the refusal: the right browser cannot use it afterwards either.
    const auto later = f.come_back(at.header("location"), state_cookie);
    CHECK_THAT(later.header("location"), StartsWith("/?sign_in_error="));
  }

  SECTION("the person refusing at the provider comes back to the sign-in page saying so") {
    const auto at = f.at_provider(authorize, "alice", "alice-oidc", /*deny=*/true);
    REQUIRE(at.status == 302);
    CHECK(query_of(at.header("location"))["error"] == "access_denied");
    const auto back = f.come_back(at.header("location"), state_cookie);
    REQUIRE(back.status == 303);
    CHECK_THAT(back.header("location"), Contains("access_denied"));
    CHECK(set_cookie(back, "ironhold_session").empty());
    const auto audit = f.sign_in_audit();
    CHECK(std::any_of(audit.begin(), audit.end(), [](const json& e) {
      return e["details"]["via"] == "oidc" && e["outcome"] == "401";
    }));
  }

  SECTION("a code altered on the way is refused by the provider, and no session begins") {
    const auto at = f.at_provider(authorize, "alice", "alice-oidc");
    auto location = at.header("location");
    const auto code = query_of(location)["code"];
    location.replace(location.find(code), code.size(), "x" + code.substr(1));
    const auto back = f.come_back(location, state_cookie);
    CHECK_THAT(back.header("location"), Contains("invalid_grant"));
    CHECK(set_cookie(back, "ironhold_session").empty());
  }

  SECTION("a local user of the same name is never taken over") {
    REQUIRE(http_send(f.server.port(), "POST", "/api/v1/users",
                      {{"name", "alice"}, {"password", "local-password-1"}}, f.admin)
                .status == 201);
    const auto back = f.sign_in("alice", "alice-oidc");
    REQUIRE(back.status == 303);
    CHECK_THAT(back.header("location"), StartsWith("/?sign_in_error="));
    CHECK(set_cookie(back, "ironhold_session").empty());
  }
}

TEST_CASE("return_to must stay on this service, and OIDC routes say when it is not configured",
          "[oidc][session]") {
  {
    Fixture f;
    for (const char* bad : {"//evil.example/", "/\\evil.example", "https://evil.example/", "nodes"})
      CHECK(f.begin(bad).status == 400);
    CHECK(f.begin("/").status == 302);
  }
  {
    // A provider that cannot be reached is said on the sign-in page the browser returns to.
    Fixture f;
    f.idp.issuer.close();
    const auto down = f.begin();
    REQUIRE(down.status == 303);
    CHECK_THAT(down.header("location"), StartsWith("/?sign_in_error="));
    CHECK_THAT(down.header("location"), Contains("cannot%20be%20reached"));
  }
  TestServer plain;
  CHECK(http_get(plain.port(), "/api/v1/session/oidc", std::nullopt).status == 404);
  CHECK(http_get(plain.port(), "/api/v1/session/providers", std::nullopt).json()["oidc"].is_null());
  // A JWT where no provider is configured: refused, saying what to use.
  const auto jwt =
      http_get(plain.port(), "/api/v1/session", std::string("eyJhbGciOiJFUzI1NiJ9.e30.c2ln"));
  CHECK(jwt.status == 401);
  CHECK_THAT(jwt.body, Contains("use an API token"));
}

TEST_CASE("scripts' Bearer JWTs are checked against the issuer's published keys",
          "[oidc][bearer]") {
  Fixture f;
  // A script's token, from the provider's token endpoint (the password grant, for the test).
  const auto token_for = [&](const std::string& user, const std::string& password) {
    HttpRequest r;
    r.method = "POST";
    r.target = "/token";
    r.content_type = "application/x-www-form-urlencoded";
    r.body = form({{"grant_type", "password"},
                   {"username", user},
                   {"password", password},
                   {"client_id", "ironhold"},
                   {"client_secret", "client-secret"},
                   {"scope", "openid groups"}});
    const auto res = http_request(f.idp.port, r);
    REQUIRE(res.status == 200);
    return res.json()["access_token"].get<std::string>();
  };
  const auto whoami = [&](const std::string& token) {
    return http_get(f.server.port(), "/api/v1/session", token);
  };

  const std::string bob = token_for("bob", "bob-oidc");
  const auto bob_is = whoami(bob);
  REQUIRE(bob_is.status == 200);
  CHECK(bob_is.json()["name"] == "bob");
  CHECK(bob_is.json()["via"] == "token");
  CHECK(bob_is.json()["role"] == "admin");
  // His changes are his, in the audit trail.
  REQUIRE(
      http_send(f.server.port(), "POST", "/api/v1/projects", {{"name", "inference"}}, bob).status ==
      201);
  const auto changes =
      http_get(f.server.port(), "/api/v1/audit?action=POST%20/api/v1/projects", f.admin)
          .json()["items"];
  CHECK(std::any_of(changes.begin(), changes.end(),
                    [](const json& e) { return e["actor"] == "bob"; }));
  // The first use made the user, and says so.
  const auto made = f.sign_in_audit();
  CHECK(std::any_of(made.begin(), made.end(), [](const json& e) {
    return e["actor"] == "bob" && e["details"]["via"] == "oidc-bearer";
  }));

  const std::string alice = token_for("alice", "alice-oidc");
  CHECK(whoami(alice).json()["role"] == "operator");
  // An operator in research only: another project's changes are refused.
  CHECK(http_send(f.server.port(), "POST", "/api/v1/projects", {{"name", "x"}}, alice).status ==
        403);

  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const json good = {{"iss", f.issuer},      {"sub", "sub-alice"}, {"aud", "ironhold"},
                     {"exp", now + 300},     {"iat", now},         {"preferred_username", "alice"},
                     {"groups", {"gpu-ops"}}};
  CHECK(whoami(f.idp.issuer.mint(good)).status == 200);

  auto expired = good;
  expired["exp"] = now - 3600;
  expired["iat"] = now - 7200;
  const auto late = whoami(f.idp.issuer.mint(expired));
  CHECK(late.status == 401);
  CHECK_THAT(late.body, Contains("the token expired at"));

  auto elsewhere = good;
  elsewhere["aud"] = "another-service";
  const auto foreign = whoami(f.idp.issuer.mint(elsewhere));
  CHECK(foreign.status == 401);
  CHECK_THAT(foreign.body, Contains("another-service"));

  auto other_issuer = good;
  other_issuer["iss"] = "https://idp.example";
  CHECK(whoami(f.idp.issuer.mint(other_issuer)).status == 401);

  auto nameless = good;
  nameless.erase("preferred_username");
  const auto no_name = whoami(f.idp.issuer.mint(nameless));
  CHECK(no_name.status == 403);
  CHECK_THAT(no_name.body, Contains("preferred_username"));

  // The issuer rotates its key: a token signed with the new one is accepted once the service
  // has fetched the key set again (it does, for a kid it does not know).
  f.idp.issuer.rotate_key();
  CHECK(whoami(f.idp.issuer.mint(good)).status == 200);

  // A token signed with a key the issuer never published (by the openssl tool) is refused, even
  // with the issuer's claims, and whatever kid it claims.
  std::string dir_template =
      (std::filesystem::temp_directory_path() / "ironhold-oidc-XXXXXX").string();
  REQUIRE(::mkdtemp(dir_template.data()) != nullptr);
  const std::filesystem::path dir = dir_template;
  const auto forger = openssl_ec_signer(dir, "forged", "P-256", "ES256", 32);
  const auto kid = f.idp.issuer.jwks()["keys"][0]["kid"].get<std::string>();
  const auto forged = whoami(openssl_sign(forger, {{"alg", "ES256"}, {"kid", kid}}, good.dump()));
  CHECK(forged.status == 401);
  CHECK_THAT(forged.body, Contains("does not verify"));
  const auto unknown =
      whoami(openssl_sign(forger, {{"alg", "ES256"}, {"kid", "forged"}}, good.dump()));
  CHECK(unknown.status == 401);
  CHECK_THAT(unknown.body, Contains("no key with kid"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("an issuer that signs with RS256 signs people in and its Bearer JWTs work",
          "[oidc][bearer]") {
  Fixture f(json::object(), "RS256");
  CHECK(f.idp.issuer.jwks()["keys"][0]["kty"] == "RSA");
  const auto back = f.sign_in("bob", "bob-oidc");
  REQUIRE(back.status == 303);
  CHECK(f.session_of(back)["name"] == "bob");
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const auto token = f.idp.issuer.mint({{"iss", f.issuer},
                                        {"sub", "sub-alice"},
                                        {"aud", "ironhold"},
                                        {"exp", now + 300},
                                        {"preferred_username", "alice"},
                                        {"groups", {"auditors"}}});
  const auto res = http_get(f.server.port(), "/api/v1/session", token);
  REQUIRE(res.status == 200);
  CHECK(res.json()["role"] == "auditor");
  // Only the algorithms configured: an RS256 token where ES256 alone is allowed is refused.
  Fixture es_only(json{{"algorithms", {"ES256"}}}, "RS256");
  const auto refused = http_get(es_only.server.port(), "/api/v1/session",
                                es_only.idp.issuer.mint({{"iss", es_only.issuer},
                                                         {"sub", "sub-alice"},
                                                         {"aud", "ironhold"},
                                                         {"exp", now + 300},
                                                         {"preferred_username", "alice"}}));
  CHECK(refused.status == 503);
  CHECK_THAT(refused.body, Contains("signs with none of the algorithms"));
}

TEST_CASE("a service that accepts no Bearer JWTs says so", "[oidc][bearer]") {
  Fixture f(json{{"bearer_tokens", false}});
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const auto token = f.idp.issuer.mint({{"iss", f.issuer},
                                        {"sub", "sub-bob"},
                                        {"aud", "ironhold"},
                                        {"exp", now + 300},
                                        {"preferred_username", "bob"}});
  const auto res = http_get(f.server.port(), "/api/v1/session", token);
  CHECK(res.status == 401);
  CHECK_THAT(res.body, Contains("bearer_tokens is false"));
}

}  // namespace oidc_sign_in_test

// The simulated OpenID Connect issuer (sim/oidc/), served in-process on loopback and spoken to over
// real HTTP with libcurl: the discovery document, the code flow as a browser and a relying party
// walk it, the token endpoint's refusals with RFC 6749's error codes, and the password grant.
#include "tests/sim/oidc_issuer_support.hpp"

namespace oidc_issuer_test {

TEST_CASE("the discovery document names the issuer's endpoints from its bound address", "[oidc]") {
  IssuerOnLoopback idp(test_options());
  CHECK(idp.issuer.issuer() == idp.origin);
  const auto reply = get(idp.origin + "/.well-known/openid-configuration");
  REQUIRE(reply.status == 200);
  const json doc = reply.doc();
  CHECK(doc["issuer"] == idp.origin);
  CHECK(doc["authorization_endpoint"] == idp.origin + "/authorize");
  CHECK(doc["token_endpoint"] == idp.origin + "/token");
  CHECK(doc["jwks_uri"] == idp.origin + "/jwks");
  CHECK(doc["response_types_supported"] == json{"code"});
  CHECK(doc["subject_types_supported"] == json{"public"});
  CHECK(doc["id_token_signing_alg_values_supported"] == json{"ES256"});
  CHECK(doc["code_challenge_methods_supported"] == json{"S256"});
  CHECK(doc["grant_types_supported"] == json{"authorization_code", "password"});
  CHECK(doc["token_endpoint_auth_methods_supported"] == json{"none"});
  CHECK(doc["scopes_supported"] == json{"openid", "profile", "email", "groups"});
  CHECK(doc["claims_supported"].size() > 0);

  const json keys = get(idp.origin + "/jwks").doc();
  REQUIRE(keys["keys"].size() == 1);
  const json& key = keys["keys"][0];
  CHECK(key["kty"] == "EC");
  CHECK(key["crv"] == "P-256");
  CHECK(key["use"] == "sig");
  CHECK(key["alg"] == "ES256");
  CHECK(!key.contains("d"));
  CHECK(key == idp.issuer.jwks()["keys"][0]);

  CHECK(get(idp.origin + "/nowhere").status == 404);
  ironhold::test::CurlCall put;
  put.method = "PUT";
  put.basic.clear();
  CHECK(fetch(idp.origin + "/jwks", put).status == 405);
  CHECK(get(idp.origin + "/token").status == 405);
}

TEST_CASE("the code flow signs a user in through the form and the tokens verify", "[oidc]") {
  IssuerOnLoopback idp(test_options());
  // Characters that must be escaped in HTML and percent-encoded in the redirect.
  const std::string state = "st\"<b>&'x y";
  const std::string nonce = "n-0S6_WzA2Mj";
  const auto page = get(authorize_url(idp.origin, authorize_params(callback, state, nonce)));
  REQUIRE(page.status == 200);
  CHECK_THAT(header(page, "content-type"), StartsWith("text/html"));
  for (const char* id : {"id=\"username\"", "id=\"password\"", "id=\"sign-in\"", "id=\"deny\""})
    CHECK_THAT(page.body, Contains(id));
  CHECK_THAT(page.body, !Contains("<b>"));
  Params fields = hidden_inputs(page.body);
  CHECK(as_map(fields) == as_map(authorize_params(callback, state, nonce)));

  fields.emplace_back("username", "dana");
  fields.emplace_back("password", "dana-pass");
  const auto signed_in = post(idp.origin + "/authorize", fields);
  REQUIRE(signed_in.status == 302);
  const auto location = signed_in.headers.at("location");
  CHECK_THAT(location, StartsWith(callback + "?"));
  const auto query = query_of(location);
  CHECK(query.at("state") == state);
  CHECK(query.at("iss") == idp.origin);
  const std::string code = query.at("code");
  CHECK(code.size() == 43);  // 32 random bytes

  const auto reply = post(idp.origin + "/token", code_exchange(code));
  REQUIRE(reply.status == 200);
  CHECK(header(reply, "cache-control") == "no-store");
  const json tokens = reply.doc();
  CHECK(tokens["token_type"] == "Bearer");
  CHECK(tokens["expires_in"] == 120);
  CHECK(tokens["scope"] == "openid profile email groups");

  const auto keys = jose::JwkSet::parse(get(idp.origin + "/jwks").doc());
  const auto now = std::chrono::system_clock::now();
  jose::ClaimsExpectations id_expected{idp.origin, "ironhold"};
  id_expected.nonce = nonce;
  const auto id = jose::verify_jwt(tokens["id_token"].get<std::string>(), keys, only("ES256"),
                                   id_expected, now);
  CHECK(id.subject == "sub-dana");
  CHECK(id.all["preferred_username"] == "dana");
  CHECK(id.all["name"] == "Dana");
  CHECK(id.all["email"] == "dana@example.test");
  CHECK(id.all["groups"] == json{"gpu-ops", "night shift"});
  CHECK(id.all["azp"] == "ironhold");
  CHECK(id.all["exp"].get<long long>() - id.all["iat"].get<long long>() == 120);
  CHECK(id.all.contains("auth_time"));
  const json header = header_of(tokens["id_token"]);
  CHECK(header["alg"] == "ES256");
  CHECK(header["typ"] == "JWT");
  CHECK(header["kid"] == keys.keys().at(0).kid);

  const auto access = jose::verify_jwt(tokens["access_token"].get<std::string>(), keys,
                                       only("ES256"), {idp.origin, "ironhold"}, now);
  CHECK(access.subject == "sub-dana");
  CHECK(access.all["scope"] == "openid profile email groups");
  CHECK(access.all["client_id"] == "ironhold");
  CHECK(access.all["groups"] == json{"gpu-ops", "night shift"});
  CHECK(!access.all.contains("nonce"));

  // A code is good once.
  const auto again = post(idp.origin + "/token", code_exchange(code));
  CHECK(again.status == 400);
  CHECK(error_of(again) == "invalid_grant");
}

TEST_CASE("the token endpoint refuses a wrong verifier, redirect_uri or client secret", "[oidc]") {
  auto options = test_options();
  const std::string secret = "p@ss word+/:&";  // needs RFC 6749's form-urlencoding in Basic
  options.client_secret = secret;
  IssuerOnLoopback idp(options);
  const std::string token = idp.origin + "/token";
  const std::string good_basic = "Authorization: Basic " + base64("ironhold:" + encode(secret));
  CHECK(get(idp.origin + "/.well-known/openid-configuration")
            .doc()["token_endpoint_auth_methods_supported"] ==
        json{"client_secret_basic", "client_secret_post"});

  SECTION("a verifier that is not the challenge's") {
    const auto reply =
        post(token, code_exchange(sign_in(idp, "dana", "dana-pass"), std::string(43, 'a')),
             {good_basic});
    CHECK(reply.status == 400);
    CHECK(error_of(reply) == "invalid_grant");
    CHECK_THAT(reply.doc().value("error_description", ""), Contains("PKCE"));
  }
  SECTION("a verifier too short to be one") {
    const auto reply =
        post(token, code_exchange(sign_in(idp, "dana", "dana-pass"), "short"), {good_basic});
    CHECK(error_of(reply) == "invalid_grant");
    CHECK_THAT(reply.doc().value("error_description", ""), Contains("PKCE"));
  }
  SECTION("another redirect_uri than the authorization request's") {
    const std::string code = sign_in(idp, "dana", "dana-pass", "http://127.0.0.1:47811/a");
    const auto reply =
        post(token, code_exchange(code, verifier, "http://127.0.0.1:47811/b"), {good_basic});
    CHECK(reply.status == 400);
    CHECK(error_of(reply) == "invalid_grant");
  }
  SECTION("a code nobody issued") {
    const auto reply = post(token, code_exchange("made-up-code"), {good_basic});
    CHECK(error_of(reply) == "invalid_grant");
  }
  SECTION("a wrong or missing client secret") {
    const std::string code = sign_in(idp, "dana", "dana-pass");
    const auto wrong =
        post(token, code_exchange(code), {"Authorization: Basic " + base64("ironhold:guess")});
    CHECK(wrong.status == 401);
    CHECK(error_of(wrong) == "invalid_client");
    CHECK_THAT(header(wrong, "www-authenticate"), StartsWith("Basic"));
    const auto missing = post(token, code_exchange(code));
    CHECK(missing.status == 401);
    CHECK(error_of(missing) == "invalid_client");
    auto posted = code_exchange(code);
    posted.emplace_back("client_secret", "guess");
    CHECK(error_of(post(token, posted)) == "invalid_client");
  }
  SECTION("the right secret, by Basic or in the form") {
    CHECK(post(token, code_exchange(sign_in(idp, "dana", "dana-pass")), {good_basic}).status ==
          200);
    auto posted = code_exchange(sign_in(idp, "dana", "dana-pass"));
    posted.emplace_back("client_secret", secret);
    CHECK(post(token, posted).status == 200);
  }
}

TEST_CASE("a code expires after a minute", "[oidc]") {
  auto offset = std::make_shared<std::atomic<long long>>(0);
  auto options = test_options();
  options.clock = [offset] {
    return std::chrono::system_clock::now() + std::chrono::seconds(offset->load());
  };
  IssuerOnLoopback idp(options);
  const std::string code = sign_in(idp, "dana", "dana-pass");
  *offset = 61;
  const auto reply = post(idp.origin + "/token", code_exchange(code));
  CHECK(reply.status == 400);
  CHECK(error_of(reply) == "invalid_grant");
}

TEST_CASE("/authorize never redirects to an unchecked URI, and sends other errors back", "[oidc]") {
  IssuerOnLoopback idp(test_options());
  SECTION("a redirect_uri off loopback or an unknown client: a page, not a redirect") {
    for (const auto& params : {authorize_params("http://evil.example/cb", "s", "n"),
                               authorize_params("http://127.0.0.1.evil.example/cb", "s", "n"),
                               authorize_params("http://user@127.0.0.1/cb", "s", "n")}) {
      const auto reply = get(authorize_url(idp.origin, params));
      CHECK(reply.status == 400);
      CHECK(reply.headers.count("location") == 0);
      CHECK_THAT(reply.body, Contains("redirect_uri"));
    }
    auto stranger = authorize_params(callback, "s", "n");
    stranger[1].second = "stranger";
    const auto reply = get(authorize_url(idp.origin, stranger));
    CHECK(reply.status == 400);
    CHECK(reply.headers.count("location") == 0);
    CHECK_THAT(reply.body, Contains("stranger"));
  }
  SECTION("[::1] and localhost are loopback too") {
    CHECK(get(authorize_url(idp.origin, authorize_params("http://[::1]:9/cb", "s", "n"))).status ==
          200);
    CHECK(
        get(authorize_url(idp.origin, authorize_params("http://localhost/cb", "s", "n"))).status ==
        200);
  }
  SECTION("no PKCE, plain PKCE, another response_type or no openid scope: back to the client") {
    const auto expect_error = [&](Params params, const std::string& error) {
      const auto reply = get(authorize_url(idp.origin, params));
      REQUIRE(reply.status == 302);
      const auto query = query_of(reply.headers.at("location"));
      CHECK(query.at("error") == error);
      CHECK(query.at("state") == "the-state");
      CHECK(query.count("error_description") == 1);
    };
    auto params = authorize_params(callback, "the-state", "n");
    auto without_challenge = params;
    without_challenge.erase(without_challenge.begin() + 6);
    expect_error(without_challenge, "invalid_request");
    auto plain = params;
    plain[7].second = "plain";
    expect_error(plain, "invalid_request");
    auto implicit = params;
    implicit[0].second = "token";
    expect_error(implicit, "unsupported_response_type");
    auto no_openid = params;
    no_openid[3].second = "profile";
    expect_error(no_openid, "invalid_request");
  }
  SECTION("only the configured redirect URIs when some are") {
    auto options = test_options();
    options.redirect_uris = {"https://console.example/oidc/callback"};
    IssuerOnLoopback strict(options);
    CHECK(get(authorize_url(strict.origin, authorize_params(callback, "s", "n"))).status == 400);
    CHECK(get(authorize_url(strict.origin,
                            authorize_params("https://console.example/oidc/callback", "s", "n")))
              .status == 200);
  }
}

TEST_CASE("the sign-in form refuses a wrong password and lets the user deny", "[oidc]") {
  IssuerOnLoopback idp(test_options());
  const auto page = get(authorize_url(idp.origin, authorize_params(callback, "st", "n")));
  REQUIRE(page.status == 200);
  Params wrong = hidden_inputs(page.body);
  wrong.emplace_back("username", "dana");
  wrong.emplace_back("password", "erik-pass");
  const auto refused = post(idp.origin + "/authorize", wrong);
  CHECK(refused.status == 401);
  CHECK_THAT(refused.body, Contains("id=\"error\""));
  CHECK_THAT(refused.body, Contains("wrong user name or password"));
  CHECK(hidden_inputs(refused.body) == hidden_inputs(page.body));

  Params deny = hidden_inputs(page.body);
  deny.emplace_back("deny", "1");
  const auto denied = post(idp.origin + "/authorize", deny);
  REQUIRE(denied.status == 302);
  const auto query = query_of(denied.headers.at("location"));
  CHECK(query.at("error") == "access_denied");
  CHECK(query.at("state") == "st");
  CHECK(query.count("code") == 0);
}

TEST_CASE("the password grant gives a script tokens, and other grants are unsupported", "[oidc]") {
  IssuerOnLoopback idp(test_options());
  const std::string token = idp.origin + "/token";
  const auto reply = post(token, {{"grant_type", "password"},
                                  {"client_id", "ironhold"},
                                  {"username", "erik"},
                                  {"password", "erik-pass"}});
  REQUIRE(reply.status == 200);
  const auto keys = jose::JwkSet::parse(idp.issuer.jwks());
  const auto id = jose::verify_jwt(reply.doc()["id_token"].get<std::string>(), keys, only("ES256"),
                                   {idp.origin, "ironhold"}, std::chrono::system_clock::now());
  CHECK(id.subject == "erik-subject");
  CHECK(id.all["name"] == "Erik E.");
  CHECK(id.all["email"] == "erik@corp.test");
  CHECK(id.all["groups"] == json::array());
  CHECK(!id.all.contains("nonce"));

  const auto wrong = post(token, {{"grant_type", "password"},
                                  {"client_id", "ironhold"},
                                  {"username", "erik"},
                                  {"password", "dana-pass"}});
  CHECK(wrong.status == 400);
  CHECK(error_of(wrong) == "invalid_grant");
  const auto other = post(token, {{"grant_type", "client_credentials"}, {"client_id", "ironhold"}});
  CHECK(other.status == 400);
  CHECK(error_of(other) == "unsupported_grant_type");
}

TEST_CASE("the default users sign in with their documented passwords and groups", "[oidc]") {
  IssuerOnLoopback idp;
  const std::map<std::string, json> groups = {
      {"alice", {"gpu-ops", "auditors"}}, {"bob", {"fleet-admins"}}, {"carol", json::array()}};
  const auto keys = jose::JwkSet::parse(idp.issuer.jwks());
  for (const auto& [user, expected] : groups) {
    const auto reply = post(idp.origin + "/token", {{"grant_type", "password"},
                                                    {"client_id", "ironhold"},
                                                    {"username", user},
                                                    {"password", user + "-oidc"}});
    REQUIRE(reply.status == 200);
    const auto id =
        jose::verify_jwt(reply.doc()["id_token"].get<std::string>(), keys, only("ES256"),
                         {idp.origin, "ironhold"}, std::chrono::system_clock::now());
    CHECK(id.subject == "sub-" + user);
    CHECK(id.all["groups"] == expected);
  }
}

}  // namespace oidc_issuer_test

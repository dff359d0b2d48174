// Reading the "oidc" configuration: defaults, and every mistake refused with a message naming the
// field, above all an http:// issuer that would carry codes and tokens in clear.
#include "web/auth/oidc_config.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "inventory/error.hpp"
#include "web/auth/identity_config.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace oidc_config_test {

namespace fs = std::filesystem;
using namespace ironhold::web::auth;
using Catch::Matchers::Contains;
using ironhold::Error;
using ironhold::ErrorKind;
using nlohmann::json;

json minimal() {
  return {{"issuer", "https://login.example.com/realms/ops"},
          {"client_id", "ironhold"},
          {"redirect_uri", "https://ironhold.example.com/api/v1/session/oidc/callback"}};
}

json with(json config, const std::string& key, json value) {
  config[key] = std::move(value);
  return config;
}

std::string refusal(const json& config, const std::string& field) {
  try {
    (void)parse_oidc_config(config);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::invalid);
    CHECK(e.field() == field);
    return e.what();
  }
  FAIL("accepted: " << config.dump());
  return {};
}

TEST_CASE("a minimal OIDC configuration gets the documented defaults", "[oidc]") {
  const OidcConfig c = parse_oidc_config(minimal());
  CHECK(c.issuer == "https://login.example.com/realms/ops");
  CHECK(c.client_secret.empty());
  CHECK(c.scopes == std::vector<std::string>{"openid", "profile", "email"});
  CHECK(c.username_claim == "preferred_username");
  CHECK(c.roles_claim == "groups");
  CHECK(c.bearer_audience() == "ironhold");
  CHECK(c.bearer_tokens);
  CHECK(c.algorithms == std::vector<std::string>{"RS256", "ES256"});
  CHECK(c.timeout == std::chrono::seconds(10));
  CHECK_THAT(describe(c), Contains("public, PKCE only"));
}

TEST_CASE("http:// is refused unless allowed, and then on loopback only", "[oidc]") {
  const auto plain = with(minimal(), "issuer", "http://login.example.com");
  CHECK_THAT(refusal(plain, "oidc.issuer"), Contains("in clear"));
  CHECK_THAT(refusal(with(plain, "allow_plain_http", true), "oidc.issuer"),
             Contains("other than loopback"));
  auto loopback = with(minimal(), "issuer", "http://127.0.0.1:9000");
  loopback["redirect_uri"] = "http://127.0.0.1:8080/api/v1/session/oidc/callback";
  loopback["allow_plain_http"] = true;
  CHECK(parse_oidc_config(loopback).issuer == "http://127.0.0.1:9000");
  CHECK_THAT(refusal(with(minimal(), "issuer", "ftp://x.example"), "oidc.issuer"),
             Contains("https://"));
  CHECK_THAT(refusal(with(minimal(), "issuer", "https://x.example/?a=1"), "oidc.issuer"),
             Contains("without a query"));
}

TEST_CASE("mistakes are refused naming the field", "[oidc]") {
  CHECK_THAT(refusal(with(minimal(), "redirect_uri", "https://ironhold.example.com/callback"),
                     "oidc.redirect_uri"),
             Contains("/api/v1/session/oidc/callback"));
  CHECK_THAT(refusal(with(minimal(), "scopes", {"profile"}), "oidc.scopes"), Contains("openid"));
  CHECK_THAT(refusal(with(minimal(), "algorithms", {"HS256"}), "oidc.algorithms"),
             Contains("never none or HS*"));
  CHECK_THAT(refusal(with(minimal(), "algorithms", {"none"}), "oidc.algorithms"),
             Contains("does not verify"));
  CHECK_THAT(refusal(with(minimal(), "timeout_s", 0), "oidc.timeout_s"), Contains("from 1 to 60"));
  CHECK(refusal(with(minimal(), "clientid", "x"), "oidc.clientid").find("clientid") !=
        std::string::npos);
  auto no_issuer = minimal();
  no_issuer.erase("issuer");
  CHECK_THAT(refusal(no_issuer, "oidc.issuer"), Contains("is required"));
  auto both = with(minimal(), "client_secret", "a");
  both["client_secret_file"] = "/nonexistent";
  CHECK_THAT(refusal(both, "oidc.client_secret"), Contains("both set"));
  CHECK_THAT(refusal(with(minimal(), "client_secret_file", "/nonexistent/secret"),
                     "oidc.client_secret_file"),
             Contains("cannot be read"));
}

TEST_CASE("the client secret comes from its file and is never described", "[oidc]") {
  const fs::path file =
      fs::temp_directory_path() / ("ih-oidc-secret-" + std::to_string(::getpid()));
  std::ofstream(file) << "s3cret-value\n";
  const OidcConfig c = parse_oidc_config(with(minimal(), "client_secret_file", file.string()));
  CHECK(c.client_secret == "s3cret-value");
  CHECK(describe(c).find("s3cret") == std::string::npos);
  CHECK_THAT(describe(c), Contains(file.string()));
  fs::remove(file);
}

TEST_CASE("the identity configuration reads oidc with its role mapping", "[oidc]") {
  auto oidc = minimal();
  oidc["roles"] = {{{"value", "gpu-ops"}, {"project", "research"}, {"role", "operator"}}};
  const IdentityConfig config = parse_identity_config({{"oidc", oidc}});
  REQUIRE(config.oidc);
  CHECK_FALSE(config.ldap);
  REQUIRE(config.oidc_roles.size() == 1);
  CHECK(config.oidc_roles[0].value == "gpu-ops");
  oidc["roles"] = {{{"group", "gpu-ops"}, {"role", "operator"}}};
  CHECK_THROWS_AS(parse_identity_config({{"oidc", oidc}}), Error);
  CHECK_THROWS_WITH(parse_identity_config({{"saml", json::object()}}), Contains("\"oidc\""));
}

}  // namespace oidc_config_test

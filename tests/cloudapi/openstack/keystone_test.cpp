// Keystone v3 request bodies, token answers and catalog endpoint selection, checked against
// Keystone's own api-ref samples.
#include "cloudapi/openstack/keystone.hpp"

#include <catch2/catch.hpp>

#include "inventory/error.hpp"
#include "tests/cloudapi/openstack/samples.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace keystone_test {

using namespace ironhold::cloudapi::openstack;
using ironhold::test::openstack::have_samples;
using ironhold::test::openstack::sample;
using nlohmann::json;

namespace {

json password_credentials() {
  return {{"username", "gpu-admin"},
          {"password", "s3cret"},
          {"user_domain_name", "Default"},
          {"project_name", "gpu-team"},
          {"project_domain_name", "Default"}};
}

}  // namespace

TEST_CASE("The application-credential auth body is Keystone's sample request",
          "[openstack][cloudapi]") {
  if (!have_samples()) {
    WARN("shared cloud samples not found; skipped");
    return;
  }
  const json expected = sample("keystone/admin/auth-application-credential-id-request.json");
  const json& app = expected["auth"]["identity"]["application_credential"];
  const json credentials = {{"application_credential_id", app["id"]},
                            {"application_credential_secret", app["secret"]}};
  CHECK(auth_request_body(parse_credentials(credentials)) == expected);
}

TEST_CASE("The password auth body has the shape of Keystone's project-name sample",
          "[openstack][cloudapi]") {
  if (!have_samples()) {
    WARN("shared cloud samples not found; skipped");
    return;
  }
  const json reference = sample("keystone/auth/requests/project-name-password.json");
  const json body = auth_request_body(parse_credentials(password_credentials()));
  CHECK(body["auth"]["identity"]["methods"] == reference["auth"]["identity"]["methods"]);
  // The sample names the user by id; a user named by name must carry its domain.
  const json& user = body["auth"]["identity"]["password"]["user"];
  CHECK(user["name"] == "gpu-admin");
  CHECK(user["password"] == "s3cret");
  CHECK(user["domain"]["name"] == "Default");
  CHECK(body["auth"]["scope"]["project"]["name"] == "gpu-team");
  CHECK(body["auth"]["scope"]["project"]["domain"]["name"] == "Default");
  for (const auto& [key, value] : reference["auth"]["scope"]["project"].items())
    CHECK(body["auth"]["scope"]["project"].contains(key));
}

TEST_CASE("Credentials name the missing field", "[openstack][cloudapi]") {
  for (const char* field :
       {"username", "password", "user_domain_name", "project_name", "project_domain_name"}) {
    json credentials = password_credentials();
    credentials.erase(field);
    try {
      (void)parse_credentials(credentials);
      FAIL("accepted credentials without " << field);
    } catch (const ironhold::Error& e) {
      CHECK(e.kind() == ironhold::ErrorKind::invalid);
      CHECK(e.field() == std::string("credentials.") + field);
      CHECK(std::string(e.what()).find(field) != std::string::npos);
    }
  }
  try {
    (void)parse_credentials(json{{"application_credential_id", "abc"}});
    FAIL("accepted an application credential without its secret");
  } catch (const ironhold::Error& e) {
    CHECK(e.field() == "credentials.application_credential_secret");
  }
  CHECK_THROWS_AS(parse_credentials(json::array()), ironhold::Error);
  CHECK_THROWS_AS(parse_credentials(json{{"username", 5}}), ironhold::Error);
}

TEST_CASE("The auth URL is normalized with or without /v3", "[openstack][cloudapi]") {
  CHECK(auth_tokens_url("http://127.0.0.1:5000/identity/v3") ==
        "http://127.0.0.1:5000/identity/v3/auth/tokens");
  CHECK(auth_tokens_url("http://127.0.0.1:5000/identity/v3/") ==
        "http://127.0.0.1:5000/identity/v3/auth/tokens");
  CHECK(auth_tokens_url("http://127.0.0.1:5000/identity") ==
        "http://127.0.0.1:5000/identity/v3/auth/tokens");
  CHECK(auth_tokens_url("https://keystone.example.com:5000/") ==
        "https://keystone.example.com:5000/v3/auth/tokens");
}

TEST_CASE("Keystone's project-scoped token sample parses", "[openstack][cloudapi]") {
  if (!have_samples()) {
    WARN("shared cloud samples not found; skipped");
    return;
  }
  const std::string body = ironhold::test::openstack::sample_text(
      "keystone/auth/responses/project-scoped-password.json");
  const json doc = json::parse(body);
  const KeystoneToken token = parse_token_response(body, "ffe47524401e4d61adc7310f7e5b6191");
  CHECK(token.id == "ffe47524401e4d61adc7310f7e5b6191");
  CHECK(token.expires_at ==
        *ironhold::parse_rfc3339(doc["token"]["expires_at"].get<std::string>()));
  REQUIRE(token.issued_at);
  CHECK(*token.issued_at == *ironhold::parse_rfc3339(doc["token"]["issued_at"].get<std::string>()));
  CHECK(token.project_id == doc["token"]["project"]["id"]);
  CHECK(token.project_name == doc["token"]["project"]["name"]);
  CHECK(token.catalog == doc["token"]["catalog"]);
  // Each interface of the identity service, by region.
  for (const auto& endpoint : doc["token"]["catalog"][0]["endpoints"]) {
    const auto url = select_endpoint(token.catalog, "identity",
                                     endpoint["interface"].get<std::string>(), "RegionOne");
    REQUIRE(url);
    CHECK(*url == endpoint["url"]);
  }
  CHECK_FALSE(select_endpoint(token.catalog, "compute", "public", ""));
  CHECK_FALSE(select_endpoint(token.catalog, "identity", "public", "RegionTwo"));
}

TEST_CASE("Keystone's application-credential token sample parses", "[openstack][cloudapi]") {
  if (!have_samples()) {
    WARN("shared cloud samples not found; skipped");
    return;
  }
  const std::string body = ironhold::test::openstack::sample_text(
      "keystone/admin/auth-application-credential-response.json");
  const json doc = json::parse(body);
  const KeystoneToken token = parse_token_response(body, "t");
  CHECK(token.expires_at ==
        *ironhold::parse_rfc3339(doc["token"]["expires_at"].get<std::string>()));
  CHECK(token.project_name == doc["token"]["project"]["name"]);
  // The older catalog form names the region only by "region" in get-service-catalog.
  const json catalog = sample("keystone/admin/get-service-catalog-response.json")["catalog"];
  for (const auto& endpoint : catalog[0]["endpoints"]) {
    const auto url = select_endpoint(catalog, "identity", endpoint["interface"].get<std::string>(),
                                     endpoint["region"].get<std::string>());
    REQUIRE(url);
    CHECK(*url == endpoint["url"]);
  }
}

TEST_CASE("The compute endpoint follows the interface and region asked for",
          "[openstack][cloudapi]") {
  const json catalog = json::parse(R"([
    {"type": "identity", "name": "keystone", "endpoints": [
      {"interface": "public", "region_id": "RegionOne", "region": "RegionOne", "url": "http://k/identity"}]},
    {"type": "compute", "name": "nova", "endpoints": [
      {"interface": "internal", "region_id": "RegionOne", "region": "RegionOne", "url": "http://n1-int/v2.1"},
      {"interface": "public", "region_id": "RegionOne", "region": "RegionOne", "url": "http://n1/v2.1"},
      {"interface": "public", "region_id": "RegionTwo", "region": "RegionTwo", "url": "http://n2/v2.1"},
      {"interface": "admin", "region_id": "RegionTwo", "region": "RegionTwo", "url": "http://n2-adm/v2.1"}]}
  ])");
  CHECK(select_endpoint(catalog, "compute", "public", "RegionOne") == "http://n1/v2.1");
  CHECK(select_endpoint(catalog, "compute", "public", "RegionTwo") == "http://n2/v2.1");
  CHECK(select_endpoint(catalog, "compute", "internal", "RegionOne") == "http://n1-int/v2.1");
  CHECK(select_endpoint(catalog, "compute", "admin", "RegionTwo") == "http://n2-adm/v2.1");
  CHECK(select_endpoint(catalog, "compute", "public", "") == "http://n1/v2.1");
  CHECK_FALSE(select_endpoint(catalog, "compute", "internal", "RegionTwo"));
  CHECK(endpoint_interface(json::object()) == "public");
  CHECK(endpoint_interface(json{{"interface", "internal"}}) == "internal");
  CHECK_THROWS_AS(endpoint_interface(json{{"interface", "private"}}), ironhold::Error);
}

TEST_CASE("A token is renewed five minutes early, or half way when short-lived",
          "[openstack][cloudapi]") {
  const auto now = std::chrono::system_clock::now();
  KeystoneToken token;
  token.expires_at = now + std::chrono::hours(1);
  CHECK(refresh_time(token, now, std::chrono::minutes(5)) == now + std::chrono::minutes(55));
  token.expires_at = now + std::chrono::minutes(4);
  CHECK(refresh_time(token, now, std::chrono::minutes(5)) == now + std::chrono::minutes(2));
}

TEST_CASE("Keystone's error body becomes a message", "[openstack][cloudapi]") {
  const auto message = keystone_error_message(
      R"({"error": {"code": 401, "message": "The request you have made requires authentication.", "title": "Unauthorized"}})");
  REQUIRE(message);
  CHECK(*message == "Unauthorized (401): The request you have made requires authentication.");
  CHECK_FALSE(keystone_error_message("not json"));
  CHECK_FALSE(keystone_error_message(R"({"error": "x"})"));
}

}  // namespace keystone_test

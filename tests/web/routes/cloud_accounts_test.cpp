// /api/v1/cloud-accounts over real HTTP: enrollment and its validation, write-only credentials
// (in no answer, no audit entry, not in the database in the clear), roles, sync status, patch,
// and deletion retiring the account's nodes.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cloud_accounts_test {

using namespace ironhold::test;
using nlohmann::json;

namespace {

const std::string kSecret = "bce-secret-0f1e2d3c4b5a69788796a5b4c3d2e1f0";

// Endpoints point at a closed loopback port: nothing leaves the machine even if a sync ran.
json bcc_account(const std::string& name) {
  return {{"name", name},
          {"provider", "bcc"},
          {"region", "bj"},
          {"endpoint", "http://127.0.0.1:9/"},
          {"credentials", {{"access_key", "ak-visible-0001"}, {"secret_key", kSecret}}}};
}

}  // namespace

TEST_CASE("an admin enrolls a cloud account, its credentials are write-only", "[web][cloud]") {
  TestServer server;
  const auto admin = server.token("admin");
  const auto created =
      http_send(server.port(), "POST", "/api/v1/cloud-accounts", bcc_account("baidu-bj"), admin);
  REQUIRE(created.status == 201);
  const json a = created.json();
  CHECK(a["name"] == "baidu-bj");
  CHECK(a["provider"] == "bcc");
  CHECK(a["region"] == "bj");
  CHECK(a["credentials"]["kind"] == "access_key");
  CHECK(a["credentials"]["identity"]["access_key"] == "ak-visible-0001");
  CHECK(a["node_count"] == 0);
  CHECK(a["sync"]["last_sync_at"].is_null());
  CHECK(created.header("location") == "/api/v1/cloud-accounts/" + a["id"].get<std::string>());
  CHECK(created.body.find(kSecret) == std::string::npos);

  const auto listed = http_get(server.port(), "/api/v1/cloud-accounts", server.token("viewer"));
  REQUIRE(listed.status == 200);
  REQUIRE(listed.json()["items"].size() == 1);
  CHECK(listed.body.find(kSecret) == std::string::npos);
  CHECK(http_get(server.port(), "/api/v1/cloud-accounts/baidu-bj", admin).json()["id"] == a["id"]);

  // Neither the audit trail nor the table holds the secret in the clear.
  const auto audit = http_get(server.port(), "/api/v1/audit", admin);
  CHECK(audit.body.find("baidu-bj") != std::string::npos);
  CHECK(audit.body.find(kSecret) == std::string::npos);
  pqxx::connection c(server.database().owner_url());
  pqxx::nontransaction tx(c);
  for (const auto& r : tx.exec("SELECT row_to_json(t)::text FROM cloud_accounts t"))
    CHECK(std::string(r[0].c_str()).find(kSecret) == std::string::npos);
  for (const auto& r : tx.exec("SELECT row_to_json(t)::text FROM audit_log t"))
    CHECK(std::string(r[0].c_str()).find(kSecret) == std::string::npos);
}

TEST_CASE("cloud account enrollment answers bad input with the field at fault", "[web][cloud]") {
  TestServer server;
  const auto admin = server.token("admin");
  auto post = [&](const json& body) {
    return http_send(server.port(), "POST", "/api/v1/cloud-accounts", body, admin);
  };
  json no_creds = bcc_account("x");
  no_creds.erase("credentials");
  auto r = post(no_creds);
  CHECK(r.status == 400);
  CHECK(r.body.find("credentials") != std::string::npos);

  json wrong_shape = bcc_account("x");
  wrong_shape["credentials"] = {{"username", "u"}, {"password", "p"}};
  r = post(wrong_shape);
  CHECK(r.status == 422);
  CHECK(r.body.find("credentials.") != std::string::npos);

  json unknown = bcc_account("x");
  unknown["provider"] = "azure";
  CHECK(post(unknown).status == 422);
  CHECK(post(json::array()).status == 400);
  json uuid_name = bcc_account("6f1c1f5e-8a31-4c57-9a53-8d7bb1c2a0f1");
  CHECK(post(uuid_name).status == 422);

  REQUIRE(post(bcc_account("dup")).status == 201);
  CHECK(post(bcc_account("dup")).status == 409);

  // Only admins enroll; operators may ask for a sync; viewers only read.
  CHECK(http_send(server.port(), "POST", "/api/v1/cloud-accounts", bcc_account("y"),
                  server.token("operator"))
            .status == 403);
  CHECK(http_get(server.port(), "/api/v1/cloud-accounts/nope", admin).status == 404);
}

TEST_CASE("a cloud account is patched, synced on request and deleted", "[web][cloud]") {
  TestServer server;
  const auto admin = server.token("admin");
  REQUIRE(http_send(server.port(), "POST", "/api/v1/cloud-accounts", bcc_account("baidu"), admin)
              .status == 201);

  auto patched = http_send(
      server.port(), "PATCH", "/api/v1/cloud-accounts/baidu",
      {{"sync_interval_s", 600}, {"credentials", {{"access_key", "ak-2"}, {"secret_key", "sk-2"}}}},
      admin);
  REQUIRE(patched.status == 200);
  CHECK(patched.json()["sync_interval_s"] == 600);
  CHECK(patched.json()["credentials"]["identity"]["access_key"] == "ak-2");
  CHECK(patched.body.find("sk-2") == std::string::npos);
  CHECK(http_send(server.port(), "PATCH", "/api/v1/cloud-accounts/baidu", {{"provider", "ec2"}},
                  admin)
            .status == 422);

  // This server runs no cloud sync: asking for one says so rather than pretending.
  CHECK(http_send(server.port(), "POST", "/api/v1/cloud-accounts/baidu/sync", json::object(),
                  server.token("operator"))
            .status == 503);

  CHECK(http_send(server.port(), "DELETE", "/api/v1/cloud-accounts/baidu", nullptr,
                  server.token("operator"))
            .status == 403);
  CHECK(http_send(server.port(), "DELETE", "/api/v1/cloud-accounts/baidu", nullptr, admin).status ==
        204);
  CHECK(http_get(server.port(), "/api/v1/cloud-accounts/baidu", admin).status == 404);
  CHECK(http_get(server.port(), "/api/v1/cloud-accounts", admin).json()["items"].empty());
}

}  // namespace cloud_accounts_test

// Tokens are stored hashed; BMC credentials are sealed and never leave through the API or logs.
#include <catch2/catch.hpp>
#include <mutex>
#include <pqxx/pqxx>

#include "inventory/util/log.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace secrets_test {

using namespace ironhold::test;
using nlohmann::json;

namespace {

std::mutex captured_mutex;
std::string captured_logs;
void capture(std::string_view line) {
  std::lock_guard lock(captured_mutex);
  captured_logs.append(line).append("\n");
}

}  // namespace

TEST_CASE("a token is stored only as its hash and a revoked token is refused", "[web][tokens]") {
  TestServer server;
  const auto admin = server.token("admin");
  auto created = http_send(server.port(), "POST", "/api/v1/tokens",
                           {{"name", "ci-bot"}, {"role", "operator"}}, admin);
  REQUIRE(created.status == 201);
  const std::string secret = created.json()["token"];
  const std::string id = created.json()["id"];
  CHECK(secret.rfind("ih_", 0) == 0);

  // The table holds neither the token nor anything the token contains beyond its short prefix.
  pqxx::connection c(server.database().owner_url());
  pqxx::work tx(c);
  const auto row = tx.exec_params1(
      "SELECT encode(token_hash, 'hex'), prefix FROM api_tokens WHERE id = $1::uuid", id);
  const std::string stored_hash = row[0].as<std::string>();
  CHECK(stored_hash.size() == 64);
  CHECK(secret.find(stored_hash) == std::string::npos);
  CHECK(secret.rfind(row[1].as<std::string>(), 0) == 0);
  const auto dump = tx.exec("SELECT row_to_json(t)::text FROM api_tokens t");
  for (const auto& r : dump)
    CHECK(std::string(r[0].c_str()).find(secret.substr(10)) == std::string::npos);
  tx.commit();

  // The list never shows secrets.
  const auto listed = http_get(server.port(), "/api/v1/tokens", admin);
  CHECK(listed.body.find(secret) == std::string::npos);

  CHECK(http_get(server.port(), "/api/v1/whoami", secret).json()["role"] == "operator");
  REQUIRE(http_send(server.port(), "DELETE", "/api/v1/tokens/ci-bot", nullptr, admin).status ==
          204);
  CHECK(http_get(server.port(), "/api/v1/whoami", secret).status == 401);
}

TEST_CASE("credentials are sealed at rest and appear in no response and no log line",
          "[web][secrets]") {
  ironhold::log::set_sink(&capture);
  ironhold::log::set_level(ironhold::log::Level::debug);
  const std::string password = "Sup3r-Secret-BMC-Passw0rd";
  const std::string kg = "0123456789abcdef0123";
  {
    TestServer server;
    const auto op = server.token("operator");
    const auto port = server.port();
    std::vector<HttpResult> responses;
    json body = {{"name", "gpu-s1"},
                 {"driver", "ipmi"},
                 {"endpoint", "ipmi://10.9.8.7"},
                 {"credentials", {{"username", "ADMIN"}, {"password", password}}},
                 {"options", {{"kg", kg}, {"privilege", "admin"}}}};
    responses.push_back(http_send(port, "POST", "/api/v1/nodes", body, op));
    REQUIRE(responses.back().status == 201);
    const std::string id = responses.back().json()["id"];
    responses.push_back(http_get(port, "/api/v1/nodes/gpu-s1", op));
    responses.push_back(http_get(port, "/api/v1/nodes", op));
    responses.push_back(
        http_send(port, "PATCH", "/api/v1/nodes/gpu-s1",
                  {{"credentials", {{"username", "ADMIN"}, {"password", password + "2"}}}}, op));
    responses.push_back(
        http_send(port, "POST", "/api/v1/nodes", body, op));  // 409 echoes nothing secret
    body["name"] = "gpu-s2";
    body["options"]["kg"] = "not-hex-" + password;
    responses.push_back(http_send(port, "POST", "/api/v1/nodes", body, op));  // 422
    CHECK(responses.back().status == 422);
    for (const auto& r : responses) {
      INFO(r.body);
      CHECK(r.body.find(password) == std::string::npos);
      CHECK(r.body.find(kg) == std::string::npos);
    }
    CHECK(responses[1].json()["options"] == json({{"privilege", "admin"}}));

    // At rest: sealed bytes only, bound to the node, opening to what was sent.
    pqxx::connection c(server.database().owner_url());
    pqxx::work tx(c);
    const auto row = tx.exec_params1(
        "SELECT encode(sealed, 'escape'), key_id, length(sealed) FROM node_credentials WHERE "
        "node_id = $1::uuid",
        id);
    CHECK(std::string(row[0].c_str()).find(password) == std::string::npos);
    CHECK(std::string(row[0].c_str()).find("ADMIN") == std::string::npos);
    CHECK(row[2].as<int>() > 28);
    const auto everything = tx.exec("SELECT row_to_json(n)::text FROM nodes n");
    for (const auto& r : everything) CHECK(std::string(r[0].c_str()).find(kg) == std::string::npos);
    tx.commit();
    const auto secrets = server.host().nodes().secrets(id);
    REQUIRE(secrets.credentials);
    CHECK(secrets.credentials->password == password + "2");
    CHECK(secrets.kg == kg);
  }
  ironhold::log::set_sink(nullptr);
  std::lock_guard lock(captured_mutex);
  CHECK(captured_logs.find("\"path\":\"/api/v1/nodes\"") !=
        std::string::npos);  // the capture works
  CHECK(captured_logs.find(password) == std::string::npos);
  CHECK(captured_logs.find(kg) == std::string::npos);
}

}  // namespace secrets_test

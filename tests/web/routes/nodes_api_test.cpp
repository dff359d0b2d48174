// The node API over real HTTP on loopback, against a real PostgreSQL database.
#include <catch2/catch.hpp>

#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace nodes_api_test {

using namespace ironhold::test;
using nlohmann::json;

namespace {

json enrollment(const std::string& name, const std::string& endpoint = "https://10.1.2.3") {
  return {{"name", name},
          {"driver", endpoint.rfind("ipmi", 0) == 0 ? "ipmi" : "redfish"},
          {"endpoint", endpoint},
          {"credentials", {{"username", "root"}, {"password", "calvin-secret"}}},
          {"location", {{"site", "ams1"}, {"rack", "R7"}, {"unit", 12}}},
          {"tags", {{"team", "ml"}, {"gpu", "H100"}}}};
}

// Checks an RFC 9457 problem body with the expected status.
void require_problem(const HttpResult& res, int status) {
  INFO(res.body);
  REQUIRE(res.status == status);
  REQUIRE(res.header("content-type") == "application/problem+json");
  const auto body = res.json();
  CHECK(body["status"] == status);
  CHECK(body["title"].is_string());
  CHECK(body["detail"].is_string());
  CHECK_FALSE(body["detail"].get<std::string>().empty());
  CHECK(body["request_id"].get<std::string>() == res.header("x-request-id"));
}

}  // namespace

TEST_CASE("an enrolled node reads back by id and by name", "[web][nodes]") {
  TestServer server;
  const auto token = server.token("operator");
  auto created = http_send(server.port(), "POST", "/api/v1/nodes", enrollment("gpu-a01"), token);
  INFO(created.body);
  REQUIRE(created.status == 201);
  const auto node = created.json();
  const std::string id = node["id"];
  CHECK(created.header("location") == "/api/v1/nodes/" + id);
  CHECK(node["name"] == "gpu-a01");
  CHECK(node["source"] == "bmc");
  CHECK(node["driver"] == "redfish");
  CHECK(node["endpoint"] == "https://10.1.2.3");
  CHECK(node["location"] == json({{"site", "ams1"}, {"rack", "R7"}, {"unit", 12}}));
  CHECK(node["tags"] == json({{"team", "ml"}, {"gpu", "H100"}}));
  CHECK(node["power_state"] == "unknown");
  CHECK(node["health"] == "unknown");
  CHECK(node["lifecycle"] == "enrolled");
  CHECK(node["credentials_set"] == true);
  CHECK_FALSE(node.contains("credentials"));

  auto by_id = http_get(server.port(), "/api/v1/nodes/" + id, token);
  auto by_name = http_get(server.port(), "/api/v1/nodes/gpu-a01", token);
  REQUIRE(by_id.status == 200);
  REQUIRE(by_name.status == 200);
  CHECK(by_id.json() == node);
  CHECK(by_name.json() == node);
}

TEST_CASE("PATCH merges objects, replaces fields and works by name", "[web][nodes]") {
  TestServer server;
  const auto token = server.token("operator");
  REQUIRE(http_send(server.port(), "POST", "/api/v1/nodes", enrollment("gpu-a02"), token).status ==
          201);
  json patch = {{"tags", {{"team", nullptr}, {"pool", "batch"}}},
                {"location", {{"unit", 14}}},
                {"maintenance", true},
                {"maintenance_reason", "replacing PSU2"},
                {"name", "gpu-a02-renamed"}};
  auto res = http_send(server.port(), "PATCH", "/api/v1/nodes/gpu-a02", patch, token);
  INFO(res.body);
  REQUIRE(res.status == 200);
  const auto node = res.json();
  CHECK(node["name"] == "gpu-a02-renamed");
  CHECK(node["tags"] == json({{"gpu", "H100"}, {"pool", "batch"}}));
  CHECK(node["location"] == json({{"site", "ams1"}, {"rack", "R7"}, {"unit", 14}}));
  CHECK(node["maintenance"] == true);
  CHECK(node["maintenance_reason"] == "replacing PSU2");
  CHECK(http_get(server.port(), "/api/v1/nodes/gpu-a02", token).status == 404);
  CHECK(http_get(server.port(), "/api/v1/nodes/gpu-a02-renamed", token).status == 200);
}

TEST_CASE("DELETE retires a node, keeps it readable, and frees its name", "[web][nodes]") {
  TestServer server;
  const auto op = server.token("operator");
  const auto admin = server.token("admin");
  const std::string id =
      http_send(server.port(), "POST", "/api/v1/nodes", enrollment("gpu-r1"), op).json()["id"];
  REQUIRE(http_send(server.port(), "DELETE", "/api/v1/nodes/gpu-r1", nullptr, op).status == 204);
  auto retired = http_get(server.port(), "/api/v1/nodes/" + id, op).json();
  CHECK(retired["lifecycle"] == "retired");
  CHECK(retired["retired_at"].is_string());
  CHECK(retired["credentials_set"] == false);  // secrets go with retirement
  CHECK(http_get(server.port(), "/api/v1/nodes", op).json()["items"].empty());
  CHECK(http_get(server.port(), "/api/v1/nodes?lifecycle=retired", op).json()["items"].size() == 1);
  // The name can be used again, and a name now finds the node in service.
  const std::string id2 =
      http_send(server.port(), "POST", "/api/v1/nodes", enrollment("gpu-r1"), op).json()["id"];
  CHECK(http_get(server.port(), "/api/v1/nodes/gpu-r1", op).json()["id"] == id2);
  // A retired node cannot be changed.
  require_problem(
      http_send(server.port(), "PATCH", "/api/v1/nodes/" + id, {{"tags", {{"a", "b"}}}}, op), 409);
  // Purge removes it for good (admin only).
  REQUIRE(http_send(server.port(), "DELETE", "/api/v1/nodes/" + id + "?purge=true", nullptr, admin)
              .status == 204);
  require_problem(http_get(server.port(), "/api/v1/nodes/" + id, op), 404);
}

TEST_CASE("every error status answers with a problem body", "[web][nodes][errors]") {
  ironhold::web::ServerOptions options;
  options.body_limit = 64 * 1024;
  TestServer server(options);
  const auto viewer = server.token("viewer");
  const auto op = server.token("operator");
  const auto port = server.port();
  REQUIRE(http_send(port, "POST", "/api/v1/nodes", enrollment("gpu-e1"), op).status == 201);

  SECTION("400 malformed JSON") {
    HttpRequest r{"POST", "/api/v1/nodes", "{\"name\": \"x\",", op};
    require_problem(http_request(port, r), 400);
  }
  SECTION("400 a wrong field type names the field") {
    auto body = enrollment("gpu-e2");
    body["location"]["unit"] = "twelve";
    auto res = http_send(port, "POST", "/api/v1/nodes", body, op);
    require_problem(res, 400);
    CHECK(res.json()["field"] == "location.unit");
  }
  SECTION("400 an unknown query parameter") {
    require_problem(http_get(port, "/api/v1/nodes?helth=ok", viewer), 400);
  }
  SECTION("401 without a token") {
    require_problem(http_get(port, "/api/v1/nodes", std::nullopt), 401);
  }
  SECTION("401 with an invalid token") {
    require_problem(http_get(port, "/api/v1/nodes", std::string("ih_") + std::string(43, 'A')),
                    401);
  }
  SECTION("403 a viewer cannot enroll") {
    require_problem(http_send(port, "POST", "/api/v1/nodes", enrollment("gpu-e3"), viewer), 403);
  }
  SECTION("403 an operator cannot purge") {
    require_problem(http_send(port, "DELETE", "/api/v1/nodes/gpu-e1?purge=true", nullptr, op), 403);
    CHECK(http_get(port, "/api/v1/nodes/gpu-e1", op).status == 200);
  }
  SECTION("404 unknown node") {
    require_problem(http_get(port, "/api/v1/nodes/no-such-node", viewer), 404);
  }
  SECTION("404 unknown route") {
    require_problem(http_get(port, "/api/v1/nodez", viewer), 404);
  }
  SECTION("405 with Allow") {
    auto res = http_send(port, "PUT", "/api/v1/nodes", enrollment("gpu-e4"), op);
    require_problem(res, 405);
    CHECK(res.header("allow").find("POST") != std::string::npos);
  }
  SECTION("409 duplicate name") {
    auto res = http_send(port, "POST", "/api/v1/nodes", enrollment("gpu-e1"), op);
    require_problem(res, 409);
    CHECK(res.json()["field"] == "name");
  }
  SECTION("413 body too large") {
    HttpRequest r{"POST", "/api/v1/nodes", std::string(100 * 1024, ' '), op};
    require_problem(http_request(port, r), 413);
  }
  SECTION("415 not JSON") {
    HttpRequest r{"POST", "/api/v1/nodes", "name=gpu-e5", op, "application/x-www-form-urlencoded"};
    require_problem(http_request(port, r), 415);
  }
  SECTION("422 unknown driver") {
    auto body = enrollment("gpu-e6");
    body["driver"] = "smoke-signals";
    auto res = http_send(port, "POST", "/api/v1/nodes", body, op);
    require_problem(res, 422);
    CHECK(res.json()["field"] == "driver");
  }
  SECTION("422 invalid endpoints") {
    for (const char* endpoint :
         {"https://", "ftp://10.0.0.1", "https://10.0.0.1:99999", "https://user:pw@10.0.0.1",
          "https://10.0.0.1/redfish/v1", "https://999.1.1.1", "https://[::1"}) {
      auto body = enrollment("gpu-e7");
      body["endpoint"] = endpoint;
      auto res = http_send(port, "POST", "/api/v1/nodes", body, op);
      INFO(endpoint);
      require_problem(res, 422);
      CHECK(res.json()["field"] == "endpoint");
    }
  }
  SECTION("422 an unknown option and a name shaped like a UUID") {
    auto body = enrollment("gpu-e8");
    body["options"] = {{"turbo", true}};
    require_problem(http_send(port, "POST", "/api/v1/nodes", body, op), 422);
    body = enrollment("5b1c3e1a-9f0e-4a47-9e38-3c7f4d2b9a10");
    require_problem(http_send(port, "POST", "/api/v1/nodes", body, op), 422);
  }
  SECTION("a request rate within 0.1 to 1000 per second, for Redfish endpoints only") {
    auto body = enrollment("gpu-e9");
    for (const json& rate : {json(0), json(0.01), json(5000), json(-1)}) {
      body["options"] = {{"max_requests_per_second", rate}};
      INFO(rate.dump());
      require_problem(http_send(port, "POST", "/api/v1/nodes", body, op), 422);
    }
    body["options"] = {{"max_requests_per_second", "fast"}};
    require_problem(http_send(port, "POST", "/api/v1/nodes", body, op), 400);
    body["endpoint"] = "ipmi://10.0.0.2";
    body["driver"] = "ipmi";
    body["options"] = {{"max_requests_per_second", 2}};
    require_problem(http_send(port, "POST", "/api/v1/nodes", body, op), 422);
  }
  // Nothing above may have created a node.
  CHECK(http_get(port, "/api/v1/nodes/summary", viewer).json()["total"] == 1);
}

TEST_CASE("a Redfish node keeps the request rate it was enrolled with", "[web][nodes]") {
  TestServer server;
  auto body = enrollment("gpu-paced");
  body["options"] = {{"max_requests_per_second", 2.5}};
  const auto res =
      http_send(server.port(), "POST", "/api/v1/nodes", body, server.token("operator"));
  INFO(res.body);
  REQUIRE(res.status == 201);
  CHECK(res.json()["options"]["max_requests_per_second"] == 2.5);
}

TEST_CASE("mutating requests leave audit entries with who, what and the outcome", "[web][audit]") {
  TestServer server;
  const auto op = server.token("operator");
  const auto viewer = server.token("viewer");
  const auto auditor = server.token("auditor");
  const std::string id =
      http_send(server.port(), "POST", "/api/v1/nodes", enrollment("gpu-au"), op).json()["id"];
  REQUIRE(http_send(server.port(), "POST", "/api/v1/nodes", enrollment("gpu-au2"), viewer).status ==
          403);
  auto res = http_get(server.port(), "/api/v1/audit?limit=10", auditor);
  REQUIRE(res.status == 200);
  const auto items = res.json()["items"];
  REQUIRE(items.size() == 2);
  // Newest first: the refused enrollment, then the successful one.
  CHECK(items[0]["actor"] == "viewer-2");
  CHECK(items[0]["outcome"] == "403");
  CHECK(items[0]["action"] == "POST /api/v1/nodes");
  CHECK(items[1]["actor"] == "operator-1");
  CHECK(items[1]["outcome"] == "201");
  CHECK(items[1]["target_id"] == id);
  CHECK(items[1]["target_name"] == "gpu-au");
  CHECK(items[1]["request_id"].is_string());
  // Reads are not audited, and viewers may not read the audit log.
  require_problem(http_get(server.port(), "/api/v1/audit", viewer), 403);
}

}  // namespace nodes_api_test

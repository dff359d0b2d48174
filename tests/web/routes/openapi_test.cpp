// The OpenAPI document and the router describe the same API.
#include <catch2/catch.hpp>
#include <set>

#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace openapi_test {

using namespace ironhold::test;

TEST_CASE("every registered route appears in the OpenAPI document and vice versa",
          "[web][openapi]") {
  TestServer server;
  auto res = http_get(server.port(), "/api/v1/openapi.json", server.token("viewer"));
  REQUIRE(res.status == 200);
  const auto doc = res.json();
  CHECK(doc["openapi"] == "3.1.0");

  std::set<std::string> documented;
  for (const auto& [path, methods] : doc["paths"].items())
    for (const auto& [method, op] : methods.items()) {
      documented.insert(method + " " + path);
      CHECK(op.contains("x-ironhold-role"));
      CHECK(op.contains("responses"));
    }
  std::set<std::string> registered;
  for (const auto& route : server.host().api().router().routes()) {
    std::string method(boost::beast::http::to_string(route.method));
    for (auto& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    registered.insert(method + " " + route.pattern);
  }
  CHECK(registered == documented);
  CHECK(registered.size() >= 12);
  // And the server really answers each documented route (not 404 "no such route", not 405).
  for (const auto& entry : documented) {
    const auto space = entry.find(' ');
    std::string method = entry.substr(0, space);
    for (auto& c : method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::string path = entry.substr(space + 1);
    for (std::string::size_type at; (at = path.find("{id}")) != std::string::npos;)
      path.replace(at, 4, 1, 'x');
    HttpRequest r{method, path, "{}", std::nullopt};
    auto probe = http_request(server.port(), r);
    INFO(entry << " answered " << probe.status << " " << probe.body);
    // A route may answer 404 of its own (sign-in through OIDC on a server without a provider);
    // the router's own 404 says there is no such route.
    CHECK_FALSE((probe.status == 404 && probe.body.find("no such route") != std::string::npos));
    CHECK(probe.status != 405);
  }
  CHECK(documented.count("get /api/v1/nodes") == 1);
  CHECK(documented.count("post /api/v1/nodes") == 1);
  CHECK(documented.count("get /healthz") == 1);
  CHECK(doc["paths"]["/api/v1/nodes"]["post"]["x-ironhold-role"] == "operator");
  CHECK(doc["paths"]["/api/v1/nodes/{id}"]["delete"]["x-ironhold-role"] == "operator");
  CHECK(doc["paths"]["/healthz"]["get"]["security"].empty());
}

}  // namespace openapi_test

#include <catch2/catch.hpp>

#include "web/json_body.hpp"
#include "web/router.hpp"

using namespace ironhold::web;

namespace {

Route route(http::verb method, const std::string& pattern) {
  return {method, pattern, Access::viewer, nullptr, {}};
}

}  // namespace

TEST_CASE("routes match literal segments before placeholders and report allowed methods", "[web][router]") {
  Router router;
  router.add(route(http::verb::get, "/api/v1/nodes/{id}"));
  router.add(route(http::verb::patch, "/api/v1/nodes/{id}"));
  router.add(route(http::verb::get, "/api/v1/nodes/summary"));
  std::vector<std::string> segments;
  REQUIRE(split_path("/api/v1/nodes/summary", segments));
  auto m = router.match(http::verb::get, segments);
  REQUIRE(m.route);
  CHECK(m.route->pattern == "/api/v1/nodes/summary");

  REQUIRE(split_path("/api/v1/nodes/gpu%2Da01", segments));
  m = router.match(http::verb::get, segments);
  REQUIRE(m.route);
  CHECK(m.params.at("id") == "gpu-a01");

  m = router.match(http::verb::delete_, segments);
  CHECK_FALSE(m.route);
  CHECK(m.allowed.size() == 2);

  REQUIRE(split_path("/api/v1/nodes/", segments));
  CHECK_FALSE(router.match(http::verb::get, segments).route);
  CHECK_FALSE(split_path("/api/v1/nodes/%zz", segments));
  CHECK_THROWS(router.add(route(http::verb::get, "/api/v1/nodes/{id}")));
}

TEST_CASE("JSON bodies: depth capped, NUL refused, malformed explained", "[web][json]") {
  std::string error;
  CHECK(parse_json("{\"a\": [1, 2, {\"b\": null}]}", error));
  CHECK_FALSE(parse_json(std::string(100, '[') + std::string(100, ']'), error));
  CHECK(error.find("nests") != std::string::npos);
  CHECK_FALSE(parse_json("{\"a\": \"x\\u0000y\"}", error));
  CHECK(error.find("NUL") != std::string::npos);
  CHECK_FALSE(parse_json("{\"a\": 1,}", error));
  CHECK(error.find("malformed") != std::string::npos);
  CHECK_FALSE(parse_json("\"\xff\xfe\"", error));
  // Brackets inside strings do not count as nesting.
  CHECK(parse_json("{\"a\": \"" + std::string(100, '[') + "\"}", error));
}

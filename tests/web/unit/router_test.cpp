#include "web/router.hpp"

#include <catch2/catch.hpp>

#include "web/json_body.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace router_test {

using namespace ironhold::web;

namespace {

Route route(http::verb method, const std::string& pattern) {
  return {method, pattern, Access::viewer, nullptr, {}};
}

}  // namespace

TEST_CASE("routes match literal segments before placeholders and report allowed methods",
          "[web][router]") {
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

TEST_CASE("a trailing {name*} placeholder takes the rest of the path, after fixed routes",
          "[web][router][console]") {
  Router router;
  router.add(route(http::verb::get, "/assets/{hash}/{path*}"));
  router.add(route(http::verb::get, "/assets/{hash}/manifest"));
  router.add(route(http::verb::get, "/"));
  std::vector<std::string> segments;

  REQUIRE(split_path("/assets/0a1b/js/views/node.js", segments));
  auto m = router.match(http::verb::get, segments);
  REQUIRE(m.route);
  CHECK(m.route->pattern == "/assets/{hash}/{path*}");
  CHECK(m.params.at("hash") == "0a1b");
  CHECK(m.params.at("path") == "js/views/node.js");

  // One segment is enough; the decoded segments are joined as they are.
  REQUIRE(split_path("/assets/0a1b/app%2Ecss", segments));
  m = router.match(http::verb::get, segments);
  REQUIRE(m.route);
  CHECK(m.params.at("path") == "app.css");

  // A fixed route of the same length wins over the rest-of-path one.
  REQUIRE(split_path("/assets/0a1b/manifest", segments));
  m = router.match(http::verb::get, segments);
  REQUIRE(m.route);
  CHECK(m.route->pattern == "/assets/{hash}/manifest");

  // Nothing after the hash, an empty segment anywhere in the rest, or a trailing slash: no match.
  for (const char* path :
       {"/assets/0a1b", "/assets/0a1b/", "/assets/0a1b/js//app.js", "/assets/0a1b/js/"}) {
    REQUIRE(split_path(path, segments));
    INFO(path);
    CHECK_FALSE(router.match(http::verb::get, segments).route);
  }

  // Other methods are reported as not allowed, like any route.
  REQUIRE(split_path("/assets/0a1b/js/app.js", segments));
  m = router.match(http::verb::post, segments);
  CHECK_FALSE(m.route);
  REQUIRE(m.allowed.size() == 1);
  CHECK(m.allowed.front() == http::verb::get);

  // Only the last segment may take the rest.
  CHECK_THROWS_AS(router.add(route(http::verb::get, "/files/{path*}/raw")), std::logic_error);
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

}  // namespace router_test

#include "inventory/model/node_query.hpp"

#include <catch2/catch.hpp>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace node_query_test {

using namespace ironhold;

TEST_CASE("a cursor carries the filters, sort, limit and position", "[model][query]") {
  NodeQuery q;
  REQUIRE(add_filter_parameter(q.filter, "health", "warning,critical"));
  REQUIRE(add_filter_parameter(q.filter, "tag", "team:ml"));
  REQUIRE(add_filter_parameter(q.filter, "maintenance", "false"));
  REQUIRE(add_filter_parameter(q.filter, "q", "gpu"));
  q.sort = parse_node_sort("-last_seen");
  q.limit = 7;
  const auto cursor =
      encode_cursor(q, "2026-11-29T10:00:00.000000Z", "5b1c3e1a-9f0e-4a47-9e38-3c7f4d2b9a10");
  const auto back = decode_cursor(cursor);
  CHECK(back.filter.health == std::vector<std::string>{"warning", "critical"});
  CHECK(back.filter.tags == std::vector<std::pair<std::string, std::string>>{{"team", "ml"}});
  CHECK(back.filter.maintenance == false);
  CHECK(back.filter.q == "gpu");
  CHECK(back.sort.descending);
  CHECK(back.sort.field == NodeSortField::last_seen);
  CHECK(back.limit == 7);
  REQUIRE(back.after);
  CHECK(back.after->second == "5b1c3e1a-9f0e-4a47-9e38-3c7f4d2b9a10");
}

TEST_CASE("tampered cursors and bad filters are refused", "[model][query]") {
  auto encode = [](const std::string& text) {
    return crypto::base64url({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
  };
  for (const std::string doc : {"{}", "[]",
                                "{\"v\":1,\"f\":{},\"s\":\"name\",\"l\":5000,\"k\":\"a\",\"i\":"
                                "\"5b1c3e1a-9f0e-4a47-9e38-3c7f4d2b9a10\"}",
                                "{\"v\":1,\"f\":{\"health\":[\"fine\"]},\"s\":\"name\",\"l\":5,"
                                "\"k\":\"a\",\"i\":\"5b1c3e1a-9f0e-4a47-9e38-3c7f4d2b9a10\"}",
                                "{\"v\":1,\"f\":{},\"s\":\"name\",\"l\":5,\"k\":\"a\",\"i\":\"'; "
                                "DROP TABLE nodes; --\"}"}) {
    INFO(doc);
    CHECK_THROWS_AS(decode_cursor(encode(doc)), Error);
  }
  CHECK_THROWS_AS(decode_cursor("%%%"), Error);
  NodeFilter f;
  CHECK_THROWS_AS(add_filter_parameter(f, "tag", "no-colon"), Error);
  CHECK_THROWS_AS(add_filter_parameter(f, "power_state", "sleeping"), Error);
  CHECK_FALSE(add_filter_parameter(f, "sort", "name"));
}

}  // namespace node_query_test

// Keyset pagination, sorting and the summary, over real HTTP.
#include <atomic>
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <thread>

#include "inventory/util/concat.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace node_pages_test {

using namespace ironhold::test;
using nlohmann::json;

namespace {

ironhold::NodeSpec spec(const std::string& name, const std::string& site, int unit) {
  return ironhold::parse_node_spec({{"name", name},
                                    {"driver", unit % 2 ? "redfish" : "ipmi"},
                                    {"endpoint", unit % 2 ? "https://10.0.0.1" : "ipmi://10.0.0.1"},
                                    {"location", {{"site", site}, {"unit", unit % 40}}},
                                    {"tags", {{"parity", unit % 2 ? "odd" : "even"}}}});
}

// Follows `next` until the end; returns the items in order.
std::vector<json> all_pages(unsigned short port, const std::string& first,
                            const std::string& token) {
  std::vector<json> items;
  auto res = http_get(port, first, token);
  for (int guard = 0; guard < 10000; ++guard) {
    INFO(res.body);
    REQUIRE(res.status == 200);
    auto page = res.json();
    for (auto& item : page["items"]) items.push_back(item);
    if (page["next"].is_null()) break;
    res = http_get(port, "/api/v1/nodes?cursor=" + url_encode(page["next"]), token);
  }
  return items;
}

}  // namespace

TEST_CASE("keyset pages return each of 2,500 nodes exactly once while nodes are being inserted",
          "[web][nodes][pages]") {
  TestServer server;
  auto& nodes = server.host().nodes();
  std::set<std::string> original;
  for (int i = 0; i < 2500; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "n%05d", i * 2);  // even numbers leave room between names
    original.insert(nodes.create(spec(name, "ams1", i)).id);
  }
  const auto token = server.token("viewer");

  std::atomic<bool> done{false};
  std::atomic<int> inserted{0};
  std::thread writer([&] {
    // Odd names sort between the existing ones, before and after the reader's position.
    for (int i = 0; i < 2500 && !done; i += 7) {
      char name[32];
      std::snprintf(name, sizeof name, "n%05d", i * 2 + 1);
      nodes.create(spec(name, "ams1", i));
      ++inserted;
    }
  });
  const auto items = all_pages(server.port(), "/api/v1/nodes?limit=97", token);
  done = true;
  writer.join();
  CHECK(inserted > 0);

  std::map<std::string, int> seen;
  for (const auto& item : items) ++seen[item["id"]];
  for (const auto& [id, count] : seen) {
    INFO(id);
    CHECK(count == 1);
  }
  for (const auto& id : original) CHECK(seen.count(id) == 1);
  // In name order throughout.
  for (std::size_t i = 1; i < items.size(); ++i)
    CHECK(items[i - 1]["name"].get<std::string>() < items[i]["name"].get<std::string>());
}

TEST_CASE("sorting, filters and the summary agree with the list", "[web][nodes][pages]") {
  TestServer server;
  auto& nodes = server.host().nodes();
  for (int i = 0; i < 60; ++i) {
    auto created = nodes.create(
        spec(ironhold::util::concat("s", std::to_string(100 + i)), i % 3 ? "ams1" : "fra2", i));
    if (i % 4 == 0) nodes.update(created.id, {{"maintenance", true}});
  }
  const auto token = server.token("viewer");
  const auto port = server.port();

  SECTION("every sort, both directions, pages agree with one big page") {
    for (std::string sort : {"name", "health", "power_state", "last_seen", "created_at"}) {
      for (std::string prefix : {"", "-"}) {
        const auto paged = all_pages(port, "/api/v1/nodes?limit=7&sort=" + prefix + sort, token);
        const auto whole =
            http_get(port, "/api/v1/nodes?limit=1000&sort=" + prefix + sort, token).json()["items"];
        INFO(prefix + sort);
        REQUIRE(paged.size() == 60);
        REQUIRE(whole.size() == 60);
        for (std::size_t i = 0; i < paged.size(); ++i) CHECK(paged[i]["id"] == whole[i]["id"]);
      }
    }
    const auto by_created =
        http_get(port, "/api/v1/nodes?limit=1000&sort=created_at", token).json()["items"];
    for (std::size_t i = 1; i < by_created.size(); ++i)
      CHECK(by_created[i - 1]["created_at"].get<std::string>() <=
            by_created[i]["created_at"].get<std::string>());
    const auto by_name_desc =
        http_get(port, "/api/v1/nodes?limit=1000&sort=-name", token).json()["items"];
    CHECK(by_name_desc.front()["name"] == "s159");
    CHECK(by_name_desc.back()["name"] == "s100");
  }

  SECTION("the summary counts what the list returns for the same filters") {
    for (std::string filter : {"", "site=ams1", "maintenance=true", "tag=parity:odd",
                               "driver=ipmi&site=fra2", "q=S12"}) {
      const auto listed = all_pages(port, "/api/v1/nodes?limit=1000&" + filter, token);
      const auto summary = http_get(port, "/api/v1/nodes/summary?" + filter, token).json();
      INFO(filter);
      CHECK(summary["total"] == listed.size());
      std::map<std::string, int> by_driver;
      for (const auto& n : listed) ++by_driver[n["driver"]];
      for (const auto& [driver, count] : by_driver) CHECK(summary["driver"][driver] == count);
      CHECK(summary["health"]["unknown"] == listed.size());
    }
    CHECK(http_get(port, "/api/v1/nodes/summary?site=fra2", token).json()["total"] == 20);
    CHECK(http_get(port, "/api/v1/nodes/summary?maintenance=true", token).json()["total"] == 15);
    CHECK(http_get(port, "/api/v1/nodes/summary?q=s12", token).json()["total"] == 10);
  }

  SECTION("a cursor with other parameters, a bad cursor and a bad sort are refused") {
    const auto first = http_get(port, "/api/v1/nodes?limit=5", token).json();
    const std::string next = first["next"];
    CHECK(http_get(port, "/api/v1/nodes?cursor=" + url_encode(next) + "&site=ams1", token).status ==
          400);
    CHECK(http_get(port, "/api/v1/nodes?cursor=not-a-cursor", token).status == 400);
    CHECK(http_get(port, "/api/v1/nodes?sort=serial", token).status == 400);
    CHECK(http_get(port, "/api/v1/nodes?limit=1001", token).status == 400);
    CHECK(http_get(port, "/api/v1/nodes?health=fine", token).status == 400);
  }
}

}  // namespace node_pages_test

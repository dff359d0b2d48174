// GET /api/v1/nodes renders each row straight to JSON text (list_text, append_row_json); every
// other reader builds Nodes (list) and to_json writes them. The two must say the same: each page
// parsed against to_json of the same page, for nodes whose columns hold what text rendering gets
// wrong first (escapes, control characters, non-ASCII, numbers of every form, nesting, missing and
// unexpected hardware fields, nulls), page by page through the cursor.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "inventory/model/node_query.hpp"
#include "tests/inventory/db/store_fixture.hpp"

using nlohmann::json;

namespace ironhold::test {
namespace node_row_json_test {
namespace {

json spec(const std::string& name, json extra) {
  json body = {{"name", name},
               {"driver", "redfish"},
               {"endpoint", "https://127.0.0.2:1"},
               {"credentials", {{"username", "u"}, {"password", "p"}}}};
  if (extra.is_object()) body.update(extra);
  return body;
}

// The page as to_json writes it, and as list_text does (parsed back).
std::pair<json, json> both(db::NodeStore& nodes, const NodeQuery& query,
                           std::optional<std::string>& next) {
  const db::NodePage page = nodes.list(query);
  const db::NodePageText text = nodes.list_text(query);
  CHECK(text.count == page.items.size());
  CHECK(text.next == page.next);
  next = page.next;
  json expected = json::array();
  for (const Node& n : page.items) expected.push_back(to_json(n));
  return {expected, json::parse("[" + text.items + "]")};
}

}  // namespace

TEST_CASE("a node list rendered from the rows says what to_json of the nodes says",
          "[db][nodes][json]") {
  StoreFixture f;
  f.nodes.create(parse_node_spec(spec("plain", {})));
  f.nodes.create(parse_node_spec(spec(
      "escaped", {{"options", {{"tls", "insecure"}, {"max_requests_per_second", 5}}},
                  {"location", {{"site", "Zürich \"ZH1\""}, {"rack", "R\\07"}, {"unit", 42}}},
                  {"tags", {{"note", "tab\there, line\nthere, bell\x07"}, {"team", "visión 🚀"}}},
                  {"maintenance", true},
                  {"maintenance_reason", "GPU 3 \"fell off the bus\""}})));
  f.nodes.create(parse_node_spec(spec("no-tags", {{"tags", json::object()}})));

  // What only the poller and the inventory write: straight into the columns.
  pqxx::connection owner(f.database.owner_url());
  pqxx::work tx(owner);
  tx.exec(
      "UPDATE nodes SET hardware = '{\"gpu_count\": 8, \"gpu_model\": \"H100 \\\"SXM\\\"\", "
      "\"memory_gib\": 2048.50, \"cpu_model\": null, \"drive_count\": \"3\", "
      "\"drive_capacity_gb\": 1.5e3, \"not_a_summary_field\": {\"deep\": [1, {\"x\": []}]}}', "
      "identity = '{\"uuid\": \"4c4c4544-0042\", \"macs\": [\"aa:bb\", \"cc:dd\"], "
      "\"nested\": {\"list\": [1, 2.5, -3, \"three\", null, true, false], \"e\": \"\\u00e9\"}}', "
      "manufacturer = 'Société Générale', serial = E'SN\\x01\\x1f', asset_tag = '', "
      "power_state = 'on', health = 'critical', reachable = false, last_error = 'timeout', "
      "last_error_message = 'no answer within 30 s', "
      "last_seen = now(), last_inspected = now() - interval '1 hour' "
      "WHERE name = 'escaped'");
  tx.exec("UPDATE nodes SET hardware = '{}', identity = '{}' WHERE name = 'no-tags'");
  tx.exec("UPDATE nodes SET retired_at = now(), lifecycle = 'retired' WHERE name = 'plain'");
  tx.commit();

  SECTION("every node in service, one page; the retired one when asked for") {
    NodeQuery query;
    query.limit = 1000;
    std::optional<std::string> next;
    const auto [expected, rendered] = both(f.nodes, query, next);
    CHECK(expected.size() == 2);
    CHECK(rendered == expected);
    CHECK_FALSE(next);
    // The hardware summary has all its fields, null where the column has none or is no object.
    for (const json& node : rendered)
      CHECK(node.at("hardware").size() == hardware_summary_keys().size());

    query.filter.lifecycle = {"retired"};
    const auto [retired_expected, retired] = both(f.nodes, query, next);
    REQUIRE(retired.size() == 1);
    CHECK(retired == retired_expected);
    CHECK(retired[0].at("retired_at").is_string());
  }

  SECTION("page by page, sorted by each key the API sorts by") {
    for (const char* sort : {"name", "-name", "created_at", "-last_seen", "health"}) {
      INFO(sort);
      NodeQuery query;
      query.sort = parse_node_sort(sort);
      query.limit = 1;
      std::size_t seen = 0;
      for (;;) {
        std::optional<std::string> next;
        const auto [expected, rendered] = both(f.nodes, query, next);
        CHECK(rendered == expected);
        seen += rendered.size();
        if (!next) break;
        query = decode_cursor(*next);
      }
      CHECK(seen == 2);
    }
  }
}

}  // namespace node_row_json_test
}  // namespace ironhold::test

#include "web/routes/node_views.hpp"

#include <charconv>

#include "inventory/error.hpp"

namespace ironhold::web {

NodeQuery node_query_from(const QueryParams& params) {
  std::optional<std::string> cursor;
  for (const auto& [key, value] : params)
    if (key == "cursor") cursor = value;
  if (cursor) {
    for (const auto& [key, value] : params)
      if (key != "cursor")
        throw invalid("\"cursor\" carries the filters, sort and limit of the first request: pass "
                      "it alone (found \"" + key.substr(0, 40) + "\" too)", key.substr(0, 40));
    return decode_cursor(*cursor);
  }
  NodeQuery query;
  for (const auto& [key, value] : params) {
    if (add_filter_parameter(query.filter, key, value)) continue;
    if (key == "sort") {
      query.sort = parse_node_sort(value);
    } else if (key == "limit") {
      int limit = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), limit);
      if (ec != std::errc{} || p != value.data() + value.size() || limit < 1 || limit > max_page_size)
        throw invalid("\"limit\" must be a number from 1 to " + std::to_string(max_page_size), "limit");
      query.limit = limit;
    } else {
      throw invalid("unknown query parameter \"" + key.substr(0, 40) + "\"", key.substr(0, 40));
    }
  }
  return query;
}

NodeFilter node_filter_from(const QueryParams& params) {
  NodeFilter filter;
  for (const auto& [key, value] : params)
    if (!add_filter_parameter(filter, key, value))
      throw invalid("unknown query parameter \"" + key.substr(0, 40) + "\"", key.substr(0, 40));
  return filter;
}

nlohmann::json page_json(const db::NodePage& page) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& node : page.items) items.push_back(to_json(node));
  return {{"items", std::move(items)}, {"next", page.next ? nlohmann::json(*page.next) : nullptr}};
}

}  // namespace ironhold::web

#include "web/routes/node_views.hpp"

#include <charconv>

#include "inventory/error.hpp"
#include "inventory/model/json_text.hpp"

namespace ironhold::web {

NodeQuery node_query_from(const QueryParams& params) {
  std::optional<std::string> cursor;
  for (const auto& [key, value] : params)
    if (key == "cursor") cursor = value;
  if (cursor) {
    for (const auto& [key, value] : params)
      if (key != "cursor")
        throw invalid(
            "\"cursor\" carries the filters, sort and limit of the first request: pass "
            "it alone (found \"" +
                key.substr(0, 40) + "\" too)",
            key.substr(0, 40));
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
      if (ec != std::errc{} || p != value.data() + value.size() || limit < 1 ||
          limit > max_page_size)
        throw invalid("\"limit\" must be a number from 1 to " + std::to_string(max_page_size),
                      "limit");
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

std::string page_json_text(db::NodePageText page) {
  std::string out;
  out.reserve(page.items.size() + 64);
  out += "{\"items\":[";
  out += page.items;
  out += "],\"next\":";
  json_text::append_optional(out, page.next);
  out += '}';
  return out;
}

}  // namespace ironhold::web

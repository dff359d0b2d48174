#pragma once
// Pure request → query and result → JSON functions of the node routes, testable without a socket.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "inventory/db/node_store.hpp"
#include "inventory/model/node_query.hpp"

namespace ironhold::web {

using QueryParams = std::vector<std::pair<std::string, std::string>>;

// GET /api/v1/nodes: filters, sort, limit, or a cursor alone. Throws Error(invalid) naming the
// parameter at fault.
NodeQuery node_query_from(const QueryParams& params);
// GET /api/v1/nodes/summary: the filters only.
NodeFilter node_filter_from(const QueryParams& params);

// {"items": [the page's nodes], "next": cursor or null}, written as JSON text without a tree (a
// page holds up to 1,000 nodes).
std::string page_json_text(db::NodePageText page);

}  // namespace ironhold::web

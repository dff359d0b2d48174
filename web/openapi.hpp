#pragma once
// The OpenAPI 3.1 document, generated from the registered routes so that it cannot drift from
// them: every route appears with its method, parameters, body, response and the role it needs.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "web/route.hpp"

namespace ironhold::web::openapi {

nlohmann::json ref(const std::string& schema);
// {"items": [ref], "next": string|null}
nlohmann::json page_of(const std::string& schema);

// A query parameter's description: {"name", "in": "query", "schema", "description"}.
nlohmann::json query(const char* name, nlohmann::json schema, const char* description);

nlohmann::json document(const std::vector<Route>& routes);

}  // namespace ironhold::web::openapi

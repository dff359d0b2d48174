#include "web/openapi.hpp"

#include <algorithm>

namespace ironhold::web::openapi {

nlohmann::json component_schemas();  // openapi_schemas.cpp

using nlohmann::json;

json ref(const std::string& schema) {
  return {{"$ref", "#/components/schemas/" + schema}};
}

json query(const char* name, json schema, const char* description) {
  return {
      {"name", name}, {"in", "query"}, {"schema", std::move(schema)}, {"description", description}};
}

json page_of(const std::string& schema) {
  return {{"type", "object"},
          {"required", {"items", "next"}},
          {"properties",
           {{"items", {{"type", "array"}, {"items", ref(schema)}}},
            {"next",
             {{"type", json::array({"string", "null"})},
              {"description", "cursor of the next page"}}}}}};
}

namespace {

json problem_response(const char* description) {
  return {{"description", description},
          {"content", {{"application/problem+json", {{"schema", ref("Problem")}}}}}};
}

std::vector<std::string> path_parameters(const std::string& pattern) {
  std::vector<std::string> names;
  for (auto open = pattern.find('{'); open != std::string::npos;
       open = pattern.find('{', open + 1)) {
    const auto close = pattern.find('}', open);
    if (close == std::string::npos) break;
    names.push_back(pattern.substr(open + 1, close - open - 1));
  }
  return names;
}

json operation(const Route& route) {
  json op = {{"summary", route.doc.summary},
             {"operationId", std::string(http::to_string(route.method)) + " " + route.pattern},
             {"x-ironhold-role", to_string(route.access)}};
  json parameters = json::array();
  for (const auto& name : path_parameters(route.pattern))
    parameters.push_back({{"name", name},
                          {"in", "path"},
                          {"required", true},
                          {"description", name == "id" ? "the id or the name" : ""},
                          {"schema", {{"type", "string"}}}});
  for (const auto& p : route.doc.query_parameters) parameters.push_back(p);
  if (!parameters.empty()) op["parameters"] = parameters;
  if (!route.doc.request_body.is_null())
    op["requestBody"] = {{"required", true},
                         {"content", {{"application/json", {{"schema", route.doc.request_body}}}}}};
  json ok = {{"description", "success"}};
  if (!route.doc.response.is_null())
    ok["content"] = {{route.doc.response_media_type, {{"schema", route.doc.response}}}};
  json responses = {{std::to_string(route.doc.success_status), ok}};
  responses["400"] = problem_response("malformed request");
  if (route.access != Access::anyone) {
    op["security"] = json::array({{{"bearer", json::array()}}});
    responses["401"] = problem_response("missing or invalid token");
    responses["403"] = problem_response("role too low");
  } else {
    op["security"] = json::array();
  }
  op["responses"] = responses;
  return op;
}

std::string method_key(http::verb v) {
  std::string m(http::to_string(v));
  std::transform(m.begin(), m.end(), m.begin(), [](unsigned char c) { return std::tolower(c); });
  return m;
}

}  // namespace

json document(const std::vector<Route>& routes) {
  json paths = json::object();
  for (const auto& route : routes)
    paths[route.pattern][method_key(route.method)] = operation(route);
  return {{"openapi", "3.1.0"},
          {"info",
           {{"title", "Ironhold API"},
            {"version", "1"},
            {"description",
             "One inventory and one set of actions for owned GPU servers (Redfish, IPMI) "
             "and rented cloud instances. Errors are RFC 9457 problem+json."}}},
          {"servers", json::array({{{"url", "/"}}})},
          {"paths", paths},
          {"components",
           {{"schemas", component_schemas()},
            {"securitySchemes", {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}}}}}}};
}

}  // namespace ironhold::web::openapi

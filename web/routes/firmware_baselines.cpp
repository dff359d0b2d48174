// Firmware baselines per server model (PUT/GET/DELETE /api/v1/firmware/baselines/{model}) and the
// fleet's compliance against them (GET /api/v1/firmware/compliance, JSON or ?format=csv for
// auditors).
#include "web/csv_writer.hpp"
#include "web/openapi.hpp"
#include "web/routes/model_baseline_routes.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

db::BaselineStore& baselines_of(Services& s) {
  if (!s.baselines) throw Error(ErrorKind::unavailable, "this server keeps no firmware baselines");
  return *s.baselines;
}

std::string compliance_csv(const ComplianceReport& report) {
  static const std::string header[] = {"node_id",  "node_name", "model", "component",
                                       "expected", "actual",    "status"};
  std::string out = csv_row(header);
  for (const auto& i : report.issues) {
    const std::string row[] = {i.node_id,
                               i.node_name,
                               i.model,
                               i.component,
                               i.expected,
                               i.actual.value_or(""),
                               i.actual ? "outdated" : "missing"};
    out += csv_row(row);
  }
  return out;
}

asio::awaitable<Response> compliance(Services& s, RequestContext& ctx) {
  ctx.only_query({"format"});
  const std::string format = ctx.query_value("format").value_or("json");
  if (format != "json" && format != "csv")
    throw invalid("\"format\" must be json or csv", "format");
  db::BaselineStore* store = &baselines_of(s);
  auto work = [store, scope = ctx.scope(cap_read)] { return store->compliance(scope); };
  const ComplianceReport report = co_await s.blocking(work);
  if (format == "csv") {
    co_return ctx.csv("firmware-compliance.csv", compliance_csv(report));
  }
  json items = json::array();
  for (const auto& issue : report.issues) items.push_back(to_json(issue));
  co_return ctx.json(http::status::ok, {{"nodes_checked", report.nodes_checked},
                                        {"nodes_compliant", report.nodes_compliant},
                                        {"items", std::move(items)}});
}

json baseline_schema() {
  return {{"type", "object"},
          {"properties",
           {{"model", {{"type", "string"}}},
            {"components", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}},
            {"updated_by", {{"type", {"string", "null"}}}},
            {"updated_at", {{"type", "string"}}}}}};
}

}  // namespace

void register_firmware_baseline_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  const json none = json::array();
  register_model_baseline_routes(
      api,
      {"/api/v1/firmware/baselines",
       "firmware",
       "the versions its components should run",
       "firmware_baseline",
       "components",
       {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}},
       baseline_schema(),
       [](const json& body) { return json(parse_baseline_components(body)); },
       [](Services& s, const std::string& model, const json& components, const std::string& actor) {
         return to_json(baselines_of(s).put(
             model, components.get<std::map<std::string, std::string>>(), actor));
       },
       [](Services& s) {
         json items = json::array();
         for (const auto& b : baselines_of(s).list()) items.push_back(to_json(b));
         return items;
       },
       [](Services& s, const std::string& model) { return to_json(baselines_of(s).get(model)); },
       [](Services& s, const std::string& model) { baselines_of(s).remove(model); }});
  api.router().add({http::verb::get,
                    "/api/v1/firmware/compliance",
                    Access::viewer,
                    bind(compliance),
                    {"Every node and component out of its model's baseline (outdated or missing); "
                     "?format=csv for auditors",
                     json::array({{{"name", "format"},
                                   {"in", "query"},
                                   {"schema", {{"type", "string"}, {"enum", {"json", "csv"}}}}}}),
                     nullptr,
                     200,
                     {{"type", "object"},
                      {"properties",
                       {{"nodes_checked", {{"type", "integer"}}},
                        {"nodes_compliant", {{"type", "integer"}}},
                        {"items", {{"type", "array"}, {"items", {{"type", "object"}}}}}}}}}});
}

}  // namespace ironhold::web

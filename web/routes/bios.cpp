// BIOS settings as the inspections recorded them (GET /api/v1/nodes/{id}/bios, ?as_of= or
// ?history=true), the BIOS baselines per server model (PUT/GET/DELETE
// /api/v1/bios/baselines/{model}) and the fleet's drift from them (GET /api/v1/bios/drift, JSON
// or ?format=csv for auditors). Setting them is a task: POST /api/v1/nodes/{id}/bios
// (node_actions.cpp).
#include "inventory/error.hpp"
#include "inventory/model/json_fields.hpp"
#include "inventory/util/time.hpp"
#include "web/csv_writer.hpp"
#include "web/openapi.hpp"
#include "web/routes/model_baseline_routes.hpp"
#include "web/routes/node_access.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
// Named, not anonymous: in a unity build firmware_baselines.cpp's handlers share the unit.
namespace bios_routes {

using nlohmann::json;

db::BiosStore& bios_of(Services& s) {
  if (!s.bios) throw Error(ErrorKind::unavailable, "this server keeps no BIOS records");
  return *s.bios;
}

asio::awaitable<Response> node_bios(Services& s, RequestContext& ctx) {
  ctx.only_query({"as_of", "history"});
  const std::string history = ctx.query_value("history").value_or("false");
  if (history != "true" && history != "false")
    throw invalid("\"history\" must be true or false", "history");
  std::optional<std::string> as_of;
  if (auto text = ctx.query_value("as_of")) {
    const auto t = parse_rfc3339(*text);
    if (!t)
      throw invalid("\"as_of\" must be an RFC 3339 time such as 2026-11-29T12:00:00Z", "as_of");
    as_of = format_rfc3339(*t);
  }
  if (as_of && history == "true")
    throw invalid("\"as_of\" and \"history\" do not go together: the history has every version",
                  "as_of");
  const Node node = co_await authorized_node(s, ctx, ctx.path_param("id"), cap_read);
  db::BiosStore* store = &bios_of(s);
  if (history == "true") {
    auto work = [store, id = node.id] { return store->history(id); };
    json items = co_await s.blocking(work);
    co_return ctx.json(http::status::ok, {{"items", std::move(items)}});
  }
  auto work = [store, id = node.id, as_of] { return store->settings(id, as_of); };
  const std::optional<json> settings = co_await s.blocking(work);
  if (!settings)
    throw not_found(
        "node \"" + node.name + "\" has no BIOS settings recorded" +
        (as_of ? " at " + *as_of
               : std::string(" (an IPMI BMC, or a Redfish BMC without a Bios resource, has none; "
                             "otherwise the next inspection reads them)")));
  co_return ctx.json(http::status::ok, *settings);
}

json parse_baseline_body(const json& body) {
  if (!body.is_object()) throw invalid("the body must be a JSON object");
  reject_unknown_keys(body, {"attributes"}, "", ErrorKind::invalid);
  if (!body.contains("attributes") || body["attributes"].is_null())
    throw invalid("\"attributes\" is required", "attributes");
  return parse_bios_attributes(body["attributes"], "attributes");
}

std::string cell(const json& v) {
  if (v.is_null()) return "";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string drift_csv(const BiosDriftReport& report) {
  static const std::string header[] = {"node_id",  "node_name", "model", "attribute",
                                       "expected", "actual",    "status"};
  std::string out = csv_row(header);
  for (const auto& d : report.items) {
    const std::string row[] = {d.node_id,        d.node_name,
                               d.model,          d.attribute,
                               cell(d.expected), d.actual ? cell(*d.actual) : std::string(),
                               drift_status(d)};
    out += csv_row(row);
  }
  return out;
}

asio::awaitable<Response> drift(Services& s, RequestContext& ctx) {
  ctx.only_query({"format"});
  const std::string format = ctx.query_value("format").value_or("json");
  if (format != "json" && format != "csv")
    throw invalid("\"format\" must be json or csv", "format");
  db::BiosStore* store = &bios_of(s);
  auto work = [store, scope = ctx.scope(cap_read)] { return store->drift(scope); };
  const BiosDriftReport report = co_await s.blocking(work);
  if (format == "csv") {
    co_return ctx.csv("bios-drift.csv", drift_csv(report));
  }
  json items = json::array();
  for (const auto& d : report.items) items.push_back(to_json(d));
  co_return ctx.json(http::status::ok, {{"nodes_checked", report.nodes_checked},
                                        {"nodes_compliant", report.nodes_compliant},
                                        {"items", std::move(items)}});
}

json attributes_schema() {
  return {{"type", "object"},
          {"additionalProperties", {{"type", {"string", "number", "boolean"}}}}};
}

json baseline_schema() {
  return {{"type", "object"},
          {"properties",
           {{"model", {{"type", "string"}}},
            {"attributes", attributes_schema()},
            {"updated_by", {{"type", {"string", "null"}}}},
            {"updated_at", {{"type", "string"}}}}}};
}

}  // namespace bios_routes

void register_bios_routes(Api& api) {
  using namespace bios_routes;
  using openapi::query;
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  const json none = json::array();
  api.router().add(
      {http::verb::get,
       "/api/v1/nodes/{id}/bios",
       Access::viewer,
       bind(node_bios),
       {"A node's BIOS settings as last read (registry, attributes, boot order, the apply times "
        "its BMC takes); ?as_of= those it had then; ?history=true every version with what "
        "changed",
        json::array({query("as_of", {{"type", "string"}, {"format", "date-time"}},
                           "the settings current at this time"),
                     query("history", {{"type", "boolean"}},
                           "every version, newest first, with the attributes that changed")}),
        nullptr,
        200,
        {{"type", "object"},
         {"properties",
          {{"registry", {{"type", {"string", "null"}}}},
           {"attributes", attributes_schema()},
           {"boot_order", {{"type", "array"}, {"items", {{"type", "string"}}}}},
           {"apply_times", {{"type", "array"}, {"items", {{"type", "string"}}}}},
           {"settable", {{"type", "boolean"}}},
           {"since", {{"type", "string"}}},
           {"until", {{"type", {"string", "null"}}}},
           {"items", {{"type", "array"}, {"items", {{"type", "object"}}}}}}}}}});
  register_model_baseline_routes(
      api,
      {"/api/v1/bios/baselines", "BIOS", "the value each named attribute should have",
       "bios_baseline", "attributes", attributes_schema(), baseline_schema(), parse_baseline_body,
       [](Services& s, const std::string& model, const json& attributes, const std::string& actor) {
         return to_json(bios_of(s).put_baseline(model, attributes, actor));
       },
       [](Services& s) {
         json items = json::array();
         for (const auto& b : bios_of(s).baselines()) items.push_back(to_json(b));
         return items;
       },
       [](Services& s, const std::string& model) { return to_json(bios_of(s).baseline(model)); },
       [](Services& s, const std::string& model) { bios_of(s).remove_baseline(model); }});
  api.router().add(
      {http::verb::get,
       "/api/v1/bios/drift",
       Access::viewer,
       bind(drift),
       {"Every node and BIOS attribute away from its model's baseline (drifted, missing, or the "
        "BIOS never read: unread); ?format=csv for auditors",
        json::array({query("format", {{"type", "string"}, {"enum", {"json", "csv"}}},
                           "json (default) or csv")}),
        nullptr,
        200,
        {{"type", "object"},
         {"properties",
          {{"nodes_checked", {{"type", "integer"}}},
           {"nodes_compliant", {{"type", "integer"}}},
           {"items", {{"type", "array"}, {"items", {{"type", "object"}}}}}}}}}});
}

}  // namespace ironhold::web

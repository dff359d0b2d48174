// The cost of GPU capacity, owned against rented (GET /api/v1/cost): per group (GPU model by
// default), owned servers' capital, hosting and energy and rented instances' hours, the cost per
// GPU-hour used and the break-even utilisation, with every line that adds up to them (a quantity
// times a price in force then) so that an auditor can recompute each figure. ?format=csv gives
// those lines. Each caller sees the nodes of the projects it may read.
#include "web/csv_writer.hpp"
#include "web/openapi.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace cost_routes {

using nlohmann::json;

db::CostStore& cost_of(Services& s) {
  if (!s.cost) throw Error(ErrorKind::unavailable, "this server keeps no cost reports");
  return *s.cost;
}

asio::awaitable<Response> cost(Services& s, RequestContext& ctx) {
  ctx.only_query({"from", "to", "group_by", "inputs", "format"});
  const std::string format = ctx.query_value("format").value_or("json");
  if (format != "json" && format != "csv")
    throw invalid("\"format\" must be json or csv", "format");
  const CostQuery query =
      parse_cost_query(ctx.query_value("from"), ctx.query_value("to"), ctx.query_value("group_by"),
                       ctx.query_value("inputs"), std::chrono::system_clock::now());
  db::CostStore* store = &cost_of(s);
  auto work = [store, query, scope = ctx.scope(cap_read)] { return store->report(query, scope); };
  const CostReport report = co_await s.blocking(work);
  if (format == "csv") {
    std::string body = csv_row(cost_csv_header(report));
    for (const auto& row : cost_csv_rows(report)) body += csv_row(row);
    co_return ctx.csv("gpu-cost.csv", std::move(body));
  }
  co_return ctx.json(http::status::ok, to_json(report));
}

}  // namespace cost_routes

void register_cost_routes(Api& api) {
  using namespace cost_routes;
  using openapi::query;
  Services& s = api.services();
  const json time = {{"type", "string"}, {"format", "date-time"}};
  api.router().add(
      {http::verb::get,
       "/api/v1/cost",
       Access::viewer,
       [&s](RequestContext& ctx) { return cost(s, ctx); },
       {"The cost of GPU capacity over a period, owned against rented, per group: capital, "
        "hosting, energy (measured, or estimated from the rated draw), rental, cost per GPU-hour "
        "used and break-even utilisation, with the lines (quantity x price) behind every figure; "
        "?format=csv for the lines",
        json::array(
            {query("from", time, "a whole hour (default: 30 days before \"to\")"),
             query("to", time, "a whole hour (default: the next one: this hour counts so far)"),
             query("group_by", {{"type", "string"}},
                   "comma-separated: gpu_model (default), source, site, project, provider, model"),
             query("inputs", {{"type", "boolean"}}, "the lines in the JSON (default true)"),
             query("format", {{"type", "string"}, {"enum", {"json", "csv"}}},
                   "json (default) or csv (the lines)")}),
        nullptr,
        200,
        {{"type", "object"},
         {"properties",
          {{"from", time},
           {"to", time},
           {"currency", {{"type", {"string", "null"}}}},
           {"group_by", {{"type", "array"}, {"items", {{"type", "string"}}}}},
           {"totals", {{"type", "object"}}},
           {"groups", {{"type", "array"}, {"items", {{"type", "object"}}}}},
           {"missing_prices", {{"type", "array"}, {"items", {{"type", "object"}}}}},
           {"inputs", {{"type", "array"}, {"items", {{"type", "object"}}}}}}}}}});
}

}  // namespace ironhold::web

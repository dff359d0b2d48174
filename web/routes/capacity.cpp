// GPU capacity over a period (GET /api/v1/capacity): GPUs installed and powered on, and GPU-hours
// per state, grouped by ?group_by=, as JSON with a series per ?step= for the console's chart, or
// as CSV (?format=csv) with one row per group for spreadsheets. Each caller sees the nodes of
// the projects it may read, as each node's history recorded its project.
#include "inventory/util/time.hpp"
#include "web/csv_writer.hpp"
#include "web/openapi.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace capacity_routes {

using nlohmann::json;

db::CapacityStore& capacity_of(Services& s) {
  if (!s.capacity) throw Error(ErrorKind::unavailable, "this server keeps no capacity reports");
  return *s.capacity;
}

std::string report_csv(const CapacityReport& report) {
  std::string out = csv_row(capacity_csv_header(report));
  for (const auto& row : capacity_csv_rows(report)) out += csv_row(row);
  return out;
}

asio::awaitable<Response> capacity(Services& s, RequestContext& ctx) {
  ctx.only_query({"from", "to", "step", "group_by", "format"});
  const std::string format = ctx.query_value("format").value_or("json");
  if (format != "json" && format != "csv")
    throw invalid("\"format\" must be json or csv", "format");
  const CapacityQuery query =
      parse_capacity_query(ctx.query_value("from"), ctx.query_value("to"), ctx.query_value("step"),
                           ctx.query_value("group_by"), std::chrono::system_clock::now());
  db::CapacityStore* store = &capacity_of(s);
  auto work = [store, query, scope = ctx.scope(cap_read)] { return store->report(query, scope); };
  const CapacityReport report = co_await s.blocking(work);
  if (format == "csv") {
    co_return ctx.csv("gpu-capacity.csv", report_csv(report));
  }
  co_return ctx.json(http::status::ok, to_json(report));
}

json figures_schema() {
  const json number = {{"type", "number"}};
  return {{"type", "object"},
          {"properties",
           {{"gpus_installed", {{"type", "integer"}}},
            {"gpus_powered_on", {{"type", "integer"}}},
            {"gpu_hours_installed", number},
            {"gpu_hours_powered_on", number},
            {"gpu_hours_maintenance", number},
            {"gpu_hours_failed", number},
            {"gpu_hours_by_state", {{"type", "object"}}},
            {"utilisation", {{"type", {"number", "null"}}}},
            {"key", {{"type", "object"}}},
            {"series", {{"type", "array"}, {"items", {{"type", "object"}}}}}}}};
}

}  // namespace capacity_routes

void register_capacity_routes(Api& api) {
  using namespace capacity_routes;
  using openapi::query;
  Services& s = api.services();
  const json time = {{"type", "string"}, {"format", "date-time"}};
  api.router().add(
      {http::verb::get,
       "/api/v1/capacity",
       Access::viewer,
       [&s](RequestContext& ctx) { return capacity(s, ctx); },
       {"GPU capacity over a period: GPUs installed and powered on at its end, GPU-hours "
        "installed, powered on, in maintenance and failed, per group and as a series; "
        "?format=csv for one row per group",
        json::array({query("from", time, "the period's start (default: 7 days before \"to\")"),
                     query("to", time, "the period's end (default: now)"),
                     query("step", {{"type", "string"}, {"enum", {"hour", "day", "week"}}},
                           "the series' bucket (default by the period's length)"),
                     query("group_by", {{"type", "string"}},
                           "comma-separated: gpu_model, source, site, project, provider, model"),
                     query("format", {{"type", "string"}, {"enum", {"json", "csv"}}},
                           "json (default) or csv")}),
        nullptr,
        200,
        {{"type", "object"},
         {"properties",
          {{"from", time},
           {"to", time},
           {"step", {{"type", "string"}}},
           {"group_by", {{"type", "array"}, {"items", {{"type", "string"}}}}},
           {"states", {{"type", "array"}, {"items", {{"type", "string"}}}}},
           {"totals", figures_schema()},
           {"groups", {{"type", "array"}, {"items", figures_schema()}}}}}}}});
}

}  // namespace ironhold::web

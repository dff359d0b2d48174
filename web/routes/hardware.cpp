// What the poller found about a node: GET /api/v1/nodes/{id}/components, /firmware, /sensors,
// /events, and the fleet-wide GET /api/v1/events.
#include "inventory/model/hardware.hpp"

#include "inventory/error.hpp"
#include "inventory/util/time.hpp"
#include "web/cursor.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/node_access.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

db::HardwareStore& hardware(Services& s) {
  if (!s.hardware) throw Error(ErrorKind::unavailable, "this server keeps no hardware records");
  return *s.hardware;
}

// A time bound in any RFC 3339 form, normalized to UTC so that cursors compare exactly.
std::optional<std::string> utc_time_param(const RequestContext& ctx, std::string_view name) {
  auto text = ctx.query_value(name);
  if (!text) return std::nullopt;
  const auto t = parse_rfc3339(*text);
  if (!t)
    throw invalid(
        "\"" + std::string(name) + "\" must be an RFC 3339 time such as 2026-11-29T12:00:00Z",
        std::string(name));
  return format_rfc3339(*t);
}

// Every value of a repeatable, comma-separated parameter.
std::vector<std::string> list_param(const RequestContext& ctx, std::string_view name) {
  std::vector<std::string> out;
  for (const auto& [key, value] : ctx.query) {
    if (key != name) continue;
    std::size_t start = 0;
    while (start <= value.size()) {
      const auto comma = value.find(',', start);
      const auto part =
          value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!part.empty()) out.push_back(part);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

template <class E>
std::vector<std::string> enum_list_param(const RequestContext& ctx, std::string_view name) {
  auto values = list_param(ctx, name);
  for (const auto& v : values)
    if (!parse_enum<E>(v))
      throw invalid("\"" + std::string(name) + "\" must be " + join_names(enum_names<E>()) +
                        " (got \"" + v.substr(0, 40) + "\")",
                    std::string(name));
  return values;
}

// The node a path names, by id or name, retired ones included (their history stays readable).
// The path's node, when the caller may read in its project.
asio::awaitable<Node> path_node(Services& s, RequestContext& ctx) {
  Node node = co_await authorized_node(s, ctx, ctx.path_param("id"), cap_read);
  co_return node;
}

asio::awaitable<Response> node_components(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const Node node = co_await path_node(s, ctx);
  auto work = [&s, id = node.id] { return hardware(s).components(id); };
  json items = co_await s.blocking(work);
  co_return ctx.json(http::status::ok, {{"items", std::move(items)}});
}

asio::awaitable<Response> node_firmware(Services& s, RequestContext& ctx) {
  ctx.only_query({"history"});
  const auto history = ctx.query_value("history").value_or("false");
  if (history != "true" && history != "false")
    throw invalid("\"history\" must be true or false", "history");
  const Node node = co_await path_node(s, ctx);
  auto work = [&s, id = node.id, all = history == "true"] { return hardware(s).firmware(id, all); };
  json items = co_await s.blocking(work);
  co_return ctx.json(http::status::ok, {{"items", std::move(items)}});
}

db::SensorQuery sensor_query(const RequestContext& ctx) {
  db::SensorQuery q;
  if (auto cursor = ctx.query_value("cursor")) {
    ctx.only_query({"cursor"});
    const json doc = decode_cursor_json(*cursor);
    try {
      if (doc.contains("since")) q.since = doc.at("since").get<std::string>();
      if (doc.contains("until")) q.until = doc.at("until").get<std::string>();
      q.names = doc.at("name").get<std::vector<std::string>>();
      q.kinds = doc.at("kind").get<std::vector<std::string>>();
      q.limit = doc.at("limit").get<int>();
      q.after = {doc.at("t").get<std::string>(), doc.at("s").get<std::string>()};
    } catch (const json::exception&) {
      throw invalid(
          "the cursor is not valid: use the \"next\" value of the previous page unchanged",
          "cursor");
    }
    if (q.limit < 1 || q.limit > 10000 || (q.since && !parse_rfc3339(*q.since)) ||
        (q.until && !parse_rfc3339(*q.until)) || !parse_rfc3339(q.after->first))
      throw invalid(
          "the cursor is not valid: use the \"next\" value of the previous page unchanged",
          "cursor");
    return q;
  }
  ctx.only_query({"since", "until", "name", "kind", "limit"});
  q.since = utc_time_param(ctx, "since");
  q.until = utc_time_param(ctx, "until");
  q.names = list_param(ctx, "name");
  q.kinds = list_param(ctx, "kind");
  q.limit = ctx.limit_param(1000, 10000);
  return q;
}

asio::awaitable<Response> node_sensors(Services& s, RequestContext& ctx) {
  const db::SensorQuery q = sensor_query(ctx);
  const Node node = co_await path_node(s, ctx);
  auto work = [&s, id = node.id, q] { return hardware(s).sensors(id, q); };
  db::JsonPage page = co_await s.blocking(work);
  json next = nullptr;
  if (page.last) {
    json doc = {{"name", q.names},
                {"kind", q.kinds},
                {"limit", q.limit},
                {"t", (*page.last)["t"]},
                {"s", (*page.last)["s"]}};
    if (q.since) doc["since"] = *q.since;
    if (q.until) doc["until"] = *q.until;
    next = encode_cursor_json(doc);
  }
  co_return ctx.json(http::status::ok, {{"items", std::move(page.items)}, {"next", next}});
}

db::EventQuery event_query(const RequestContext& ctx, bool fleet) {
  db::EventQuery q;
  if (auto cursor = ctx.query_value("cursor")) {
    ctx.only_query({"cursor"});
    const json doc = decode_cursor_json(*cursor);
    try {
      if (doc.contains("node")) q.node_id = doc.at("node").get<std::string>();
      if (doc.contains("since")) q.since = doc.at("since").get<std::string>();
      if (doc.contains("until")) q.until = doc.at("until").get<std::string>();
      q.severities = doc.at("severity").get<std::vector<std::string>>();
      q.kinds = doc.at("kind").get<std::vector<std::string>>();
      q.limit = doc.at("limit").get<int>();
      q.before = {doc.at("t").get<std::string>(), doc.at("i").get<long long>()};
    } catch (const json::exception&) {
      throw invalid(
          "the cursor is not valid: use the \"next\" value of the previous page unchanged",
          "cursor");
    }
    if (q.limit < 1 || q.limit > 1000 || (q.node_id && !is_uuid(*q.node_id)) ||
        (q.since && !parse_rfc3339(*q.since)) || (q.until && !parse_rfc3339(*q.until)) ||
        !parse_rfc3339(q.before->first))
      throw invalid(
          "the cursor is not valid: use the \"next\" value of the previous page unchanged",
          "cursor");
    return q;
  }
  if (fleet)
    ctx.only_query({"node", "severity", "kind", "since", "until", "limit"});
  else
    ctx.only_query({"severity", "kind", "since", "until", "limit"});
  q.severities = enum_list_param<Severity>(ctx, "severity");
  q.kinds = list_param(ctx, "kind");
  q.since = utc_time_param(ctx, "since");
  q.until = utc_time_param(ctx, "until");
  q.limit = ctx.limit_param(100, 1000);
  return q;
}

asio::awaitable<Response> respond_events(Services& s, RequestContext& ctx, db::EventQuery q) {
  auto work = [&s, q] { return hardware(s).events(q); };
  db::JsonPage page = co_await s.blocking(work);
  json next = nullptr;
  if (page.last) {
    json doc = {{"severity", q.severities},
                {"kind", q.kinds},
                {"limit", q.limit},
                {"t", (*page.last)["t"]},
                {"i", (*page.last)["i"]}};
    if (q.node_id) doc["node"] = *q.node_id;
    if (q.since) doc["since"] = *q.since;
    if (q.until) doc["until"] = *q.until;
    next = encode_cursor_json(doc);
  }
  co_return ctx.json(http::status::ok, {{"items", std::move(page.items)}, {"next", next}});
}

asio::awaitable<Response> node_events(Services& s, RequestContext& ctx) {
  db::EventQuery q = event_query(ctx, false);
  // Always the path's node: a cursor is client input and may name another.
  const Node node = co_await path_node(s, ctx);
  q.node_id = node.id;
  q.scope = ctx.scope(cap_read);
  Response response = co_await respond_events(s, ctx, std::move(q));
  co_return response;
}

asio::awaitable<Response> fleet_events(Services& s, RequestContext& ctx) {
  db::EventQuery q = event_query(ctx, true);
  q.scope = ctx.scope(cap_read);
  if (!ctx.query_value("cursor")) {
    if (auto node_key = ctx.query_value("node")) {
      const std::string key = *node_key;
      const Node node = co_await authorized_node(s, ctx, key, cap_read);
      q.node_id = node.id;
    }
  }
  Response response = co_await respond_events(s, ctx, std::move(q));
  co_return response;
}

json query_param(const char* name, const char* description, json schema = {{"type", "string"}}) {
  return {{"name", name},
          {"in", "query"},
          {"required", false},
          {"description", description},
          {"schema", std::move(schema)}};
}

json list_of(const std::string& schema) {
  return {{"type", "object"},
          {"properties", {{"items", {{"type", "array"}, {"items", openapi::ref(schema)}}}}}};
}

}  // namespace

void register_hardware_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  const json time_range = json::array({query_param("since", "RFC 3339; from this time (inclusive)"),
                                       query_param("until", "RFC 3339; before this time")});
  json event_params = time_range;
  event_params.push_back(query_param("severity", "info, warning, critical; comma-separated"));
  event_params.push_back(
      query_param("kind", "sel, log, health_change, tls_pin_mismatch, ...; comma-separated"));
  event_params.push_back(query_param("limit", "page size",
                                     {{"type", "integer"}, {"maximum", 1000}, {"default", 100}}));
  event_params.push_back(query_param("cursor", "the previous page's next value, alone"));
  json fleet_params = event_params;
  fleet_params.push_back(query_param("node", "a node id or name"));
  json sensor_params = time_range;
  sensor_params.push_back(query_param("name", "sensor names; comma-separated"));
  sensor_params.push_back(
      query_param("kind", "temperature, gpu_temperature, fan, power, ...; comma-separated"));
  sensor_params.push_back(
      query_param("limit", "page size of a history",
                  {{"type", "integer"}, {"maximum", 10000}, {"default", 1000}}));
  sensor_params.push_back(query_param("cursor", "the previous page's next value, alone"));

  api.router().add({http::verb::get,
                    "/api/v1/nodes/{id}/components",
                    Access::viewer,
                    bind(node_components),
                    {"A node's components (CPUs, GPUs, memory, drives, NICs, PSUs, fans)",
                     json::array(), nullptr, 200, list_of("Component")}});
  api.router().add(
      {http::verb::get,
       "/api/v1/nodes/{id}/firmware",
       Access::viewer,
       bind(node_firmware),
       {"A node's firmware; ?history=true adds the versions it ran before",
        json::array({query_param("history", "include past versions", {{"type", "boolean"}})}),
        nullptr, 200, list_of("Firmware")}});
  api.router().add({http::verb::get,
                    "/api/v1/nodes/{id}/sensors",
                    Access::viewer,
                    bind(node_sensors),
                    {"A node's latest sensor readings; with since/until, their history",
                     sensor_params, nullptr, 200, openapi::page_of("SensorReading")}});
  api.router().add({http::verb::get,
                    "/api/v1/nodes/{id}/events",
                    Access::viewer,
                    bind(node_events),
                    {"A node's hardware events, newest first", event_params, nullptr, 200,
                     openapi::page_of("Event")}});
  api.router().add({http::verb::get,
                    "/api/v1/events",
                    Access::viewer,
                    bind(fleet_events),
                    {"Hardware events across the fleet, newest first", fleet_params, nullptr, 200,
                     openapi::page_of("Event")}});
}

}  // namespace ironhold::web

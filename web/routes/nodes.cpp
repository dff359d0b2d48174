// /api/v1/nodes: enrollment, lists with filters and keyset pages, summaries, updates, retirement.
#include "inventory/drivers/endpoint_prober.hpp"
#include "inventory/error.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/node_access.hpp"
#include "web/routes/node_views.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

// Until the node is found, the audit entry names what the client asked for.
void set_requested_node(RequestContext& ctx) {
  ctx.target_type = "node";
  ctx.target_name = ctx.path_param("id");
}

asio::awaitable<Response> list_nodes(Services& s, RequestContext& ctx) {
  NodeQuery query = node_query_from(ctx.query);
  query.filter.scope = ctx.scope(cap_read);
  auto work = [&s, query] { return s.nodes.list_text(query); };
  auto page = co_await s.blocking(work);
  co_return ctx.json_text(http::status::ok, page_json_text(std::move(page)));
}

asio::awaitable<Response> summarize_nodes(Services& s, RequestContext& ctx) {
  NodeFilter filter = node_filter_from(ctx.query);
  filter.scope = ctx.scope(cap_read);
  auto work = [&s, filter] { return s.nodes.summary(filter); };
  auto summary = co_await s.blocking(work);
  co_return ctx.json(http::status::ok, summary);
}

asio::awaitable<Response> show_node(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const Node node = co_await authorized_node(s, ctx, ctx.path_param("id"), cap_read);
  std::string body;
  append_json(body, node);
  co_return ctx.json_text(http::status::ok, std::move(body));
}

json probe_json(const ProbeResult& result) {
  json attempts = json::array();
  for (const auto& a : result.attempts)
    attempts.push_back({{"transport", a.transport}, {"outcome", a.outcome}});
  return {{"driver", result.driver ? json(*result.driver) : json(nullptr)},
          {"endpoint", result.endpoint ? json(result.endpoint->to_string()) : json(nullptr)},
          {"attempts", attempts}};
}

// The body validated again as if the client had sent the driver and endpoint the probe found, so
// that options are checked for that transport (options.kg on a host that answered Redfish is an
// error, as it would have been with driver redfish).
NodeSpec spec_for_probed(const json& body, const Endpoint& host, const ProbeResult& result) {
  if (*result.driver != "redfish" && *result.driver != "ipmi")
    throw Error(ErrorKind::internal, "the endpoint prober returned driver " + *result.driver);
  json resolved = body;
  resolved["driver"] = *result.driver;
  resolved["endpoint"] = result.endpoint->to_string();
  try {
    return parse_node_spec(resolved);
  } catch (const Error& e) {
    const std::string found = host.to_string() + " answered " + *result.driver + " (" +
                              result.endpoint->to_string() + "): ";
    throw Error(e.kind(), found + e.what(), e.field());
  }
}

// Driver "auto" with a bare host: the prober finds which transport answers; the node is stored
// with that driver and endpoint, never as "auto".
asio::awaitable<NodeSpec> resolve_auto_driver(Services& s, RequestContext& ctx, const json& body,
                                              const Endpoint& host) {
  if (host.port) {
    Endpoint https = host, ipmi = host;
    https.scheme = "https";
    ipmi.scheme = "ipmi";
    std::string why =
        "with driver auto the endpoint is a bare host, probed on the standard ports; to use "
        "another port, name the transport: ";
    why += https.to_string() + " (Redfish) or " + ipmi.to_string();
    throw unprocessable(why, "endpoint");
  }
  if (!s.prober)
    throw unprocessable(
        "driver auto-detection is unavailable on this server: give driver redfish "
        "or ipmi with an https:// or ipmi:// endpoint",
        "driver");
  EndpointProber* prober = s.prober;
  auto work = [prober, host] { return prober->probe(host); };
  const ProbeResult result = co_await s.blocking(work);
  ctx.audit_details["probe"] = probe_json(result);
  if (!result.driver || !result.endpoint) {
    std::string detail = "no BMC answered at " + host.to_string();
    const char* separator = ": ";
    for (const auto& a : result.attempts) {
      detail += separator + a.transport + ": " + a.outcome;
      separator = "; ";
    }
    throw unprocessable(detail, "endpoint");
  }
  co_return spec_for_probed(body, host, result);
}

asio::awaitable<Response> enroll_node(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "node";
  json body = ctx.json_body();
  if (body.is_object() && body.contains("name") && body["name"].is_string())
    ctx.target_name = body["name"].get<std::string>();
  if (body.is_object() && !body.contains("project")) body["project"] = ctx.default_project(cap_act);
  NodeSpec spec = parse_node_spec(body);
  ctx.require(cap_act, spec.project, "no project is named \"" + spec.project + "\"");
  if (spec.driver == "auto") {
    const Endpoint host = spec.endpoint;
    spec = co_await resolve_auto_driver(s, ctx, body, host);
  }
  auto work = [&s, spec] { return s.nodes.create(spec); };
  auto node = co_await s.blocking(work);
  ctx.set_target("node", node.id, node.name);
  auto res = ctx.json(http::status::created, to_json(node));
  res.set(http::field::location, "/api/v1/nodes/" + node.id);
  co_return res;
}

asio::awaitable<Response> update_node(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  set_requested_node(ctx);
  const json patch = ctx.json_body();
  if (patch.is_object()) {
    // Which fields changed goes to the audit trail; their values may be secret, so not those.
    json fields = json::array();
    for (const auto& [key, value] : patch.items()) fields.push_back(key);
    ctx.audit_details["fields"] = fields;
  }
  const Node current = co_await authorized_node(s, ctx, ctx.path_param("id"), cap_act);
  if (patch.is_object() && patch.contains("gpus_expected"))
    ctx.audit_details["gpus_expected"] = {
        {"from", current.gpus_expected ? json(*current.gpus_expected) : json(nullptr)},
        {"to", patch["gpus_expected"]}};
  // Moving a node to another project takes an admin of both.
  if (patch.is_object() && patch.contains("project") && patch["project"].is_string() &&
      patch["project"] != current.project) {
    const std::string to = patch["project"].get<std::string>();
    ctx.require(cap_manage, current.project, node_not_found_message(ctx.path_param("id")));
    ctx.require(cap_manage, to, "no project is named \"" + to.substr(0, 100) + "\"");
    ctx.audit_details["project"] = {{"from", current.project}, {"to", to}};
    ctx.target_project = current.project;
  }
  auto work = [&s, id = current.id, patch] { return s.nodes.update(id, patch); };
  auto node = co_await s.blocking(work);
  ctx.set_target("node", node.id, node.name);
  co_return ctx.json(http::status::ok, to_json(node));
}

asio::awaitable<Response> delete_node(Services& s, RequestContext& ctx) {
  ctx.only_query({"purge"});
  set_requested_node(ctx);
  const auto purge_value = ctx.query_value("purge").value_or("false");
  if (purge_value != "true" && purge_value != "false")
    throw invalid("\"purge\" must be true or false", "purge");
  const bool purge = purge_value == "true";
  const Node current = co_await authorized_node(s, ctx, ctx.path_param("id"), cap_act);
  if (purge && !ctx.can(cap_manage, current.project))
    throw Error(ErrorKind::forbidden,
                "only an admin of project " + current.project +
                    " may purge a node (?purge=true); retiring it (DELETE without purge) keeps "
                    "its history");
  ctx.audit_details["purge"] = purge;
  auto work = [&s, id = current.id, purge] {
    return purge ? s.nodes.purge(id) : s.nodes.retire(id);
  };
  auto node = co_await s.blocking(work);
  ctx.set_target("node", node.id, node.name);
  co_return ctx.empty(http::status::no_content);
}

json filter_parameters() {
  auto p = [](const char* name, const char* description) {
    return json{{"name", name},
                {"in", "query"},
                {"required", false},
                {"description", description},
                {"schema", {{"type", "string"}}}};
  };
  return json::array({
      p("ids", "node ids; comma-separated values match any"),
      p("names", "node names; comma-separated values match any"),
      p("source", "bmc or cloud; comma-separated values match any"),
      p("driver", "redfish, ipmi, or a cloud provider; comma-separated"),
      p("health", "ok, warning, critical, unknown; comma-separated"),
      p("power_state", "on, off, transitioning, unknown; comma-separated"),
      p("lifecycle", "lifecycle states; comma-separated; retired nodes only appear when asked for"),
      p("maintenance", "true or false"),
      p("tag", "key:value; repeat for several (all must match)"),
      p("site", "exact site"),
      p("rack", "exact rack"),
      p("q", "case-insensitive substring of the name"),
      p("gpu_model", "exact GPU model of the hardware summary; repeat for several"),
      p("project", "project names; comma-separated values match any"),
  });
}

}  // namespace

void register_node_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  json list_params = filter_parameters();
  list_params.push_back(
      {{"name", "sort"},
       {"in", "query"},
       {"required", false},
       {"description",
        "name, health (worst first), power_state, last_seen, created_at; - for descending"},
       {"schema", {{"type", "string"}}}});
  list_params.push_back(
      {{"name", "limit"},
       {"in", "query"},
       {"required", false},
       {"schema", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}, {"default", 100}}}});
  list_params.push_back({{"name", "cursor"},
                         {"in", "query"},
                         {"required", false},
                         {"description", "the previous page's next value, alone"},
                         {"schema", {{"type", "string"}}}});

  api.router().add({http::verb::get,
                    "/api/v1/nodes",
                    Access::viewer,
                    bind(list_nodes),
                    {"List nodes", list_params, nullptr, 200, openapi::page_of("Node")}});
  api.router().add(
      {http::verb::get,
       "/api/v1/nodes/summary",
       Access::viewer,
       bind(summarize_nodes),
       {"Count nodes by health, power state, source, driver, lifecycle and GPU model (gpu_model: "
        "nodes per model; gpus: their GPUs)",
        filter_parameters(), nullptr, 200, openapi::ref("NodeSummary")}});
  api.router().add({http::verb::post,
                    "/api/v1/nodes",
                    Access::operator_,
                    bind(enroll_node),
                    {"Enroll a node", json::array(), openapi::ref("NodeEnrollment"), 201,
                     openapi::ref("Node")}});
  api.router().add(
      {http::verb::get,
       "/api/v1/nodes/{id}",
       Access::viewer,
       bind(show_node),
       {"Show a node (by id or name)", json::array(), nullptr, 200, openapi::ref("Node")}});
  api.router().add(
      {http::verb::patch,
       "/api/v1/nodes/{id}",
       Access::operator_,
       bind(update_node),
       {"Change a node's name, endpoint, credentials, options, location, tags or maintenance",
        json::array(), openapi::ref("NodePatch"), 200, openapi::ref("Node")}});
  api.router().add({http::verb::delete_,
                    "/api/v1/nodes/{id}",
                    Access::operator_,
                    bind(delete_node),
                    {"Retire a node (history stays); ?purge=true removes it and needs admin",
                     json::array({{{"name", "purge"},
                                   {"in", "query"},
                                   {"required", false},
                                   {"schema", {{"type", "boolean"}, {"default", false}}}}}),
                     nullptr, 204, nullptr}});
}

}  // namespace ironhold::web

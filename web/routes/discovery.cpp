// /api/v1/discovery: sweeps of the management network for BMCs (Redfish, then IPMI), reported
// and optionally enrolled. A run is accepted at once (202) and runs on the discovery service's own
// threads; its progress and results are read back from PostgreSQL.
#include <boost/asio/post.hpp>
#include <charconv>

#include "inventory/db/discovery_store.hpp"
#include "inventory/discovery/discovery_service.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using discovery::DiscoveryRequest;
using discovery::DiscoveryRun;
using nlohmann::json;

constexpr int kDefaultListLimit = 20;
constexpr int kMaxListLimit = 100;

// The store and the service that runs the sweeps; the service (declared last) stops first.
struct Discovery {
  explicit Discovery(Services& s) : store(s.database) {
    if (s.prober)
      service = std::make_unique<discovery::DiscoveryService>(store, s.nodes, s.audit, *s.prober);
  }
  db::DiscoveryStore store;
  std::unique_ptr<discovery::DiscoveryService> service;  // null without a prober
};

json result_json(const discovery::DiscoveryResult& r) {
  json out = {{"address", r.address},
              {"port", r.port},
              {"driver", r.driver ? json(*r.driver) : json(nullptr)},
              {"endpoint", r.endpoint ? json(*r.endpoint) : json(nullptr)},
              {"status", r.status},
              {"detail", r.detail}};
  if (r.node_id) out["node_id"] = *r.node_id;
  if (r.node_name) out["node_name"] = *r.node_name;
  return out;
}

json run_json(const DiscoveryRun& run, bool with_results) {
  json out = db::to_json(run);
  if (with_results) {
    json results = json::array();
    for (const auto& r : run.results) results.push_back(result_json(r));
    out["results"] = std::move(results);
  }
  return out;
}

asio::awaitable<Response> start_discovery(Discovery& d, Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "discovery";
  json body = ctx.json_body();
  if (body.is_object() && !body.contains("project")) body["project"] = ctx.default_project(cap_act);
  DiscoveryRequest request = discovery::parse_discovery_request(body);
  ctx.require(cap_act, request.project, "no project is named \"" + request.project + "\"");
  ctx.audit_details["parameters"] = discovery::public_parameters(request);
  if (!d.service)
    throw Error(ErrorKind::unavailable,
                "network discovery is unavailable on this server: it has no endpoint prober");
  discovery::Requester who{ctx.actor(), ctx.actor_id(), ctx.request_id};
  discovery::DiscoveryService* service = d.service.get();
  auto work = [service, request, who] { return service->submit(request, who); };
  const DiscoveryRun run = co_await s.blocking(work);
  ctx.set_target("discovery", run.id, request.addresses_text);
  auto res = ctx.json(http::status::accepted, run_json(run, false));
  res.set(http::field::location, "/api/v1/discovery/" + run.id);
  co_return res;
}

asio::awaitable<Response> show_discovery(Discovery& d, Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::DiscoveryStore* store = &d.store;
  std::string id = ctx.path_param("id");
  auto work = [store, id] { return store->get(id); };
  const DiscoveryRun run = co_await s.blocking(work);
  ctx.require(cap_read, run.project, "no discovery run has the id \"" + id.substr(0, 100) + "\"");
  co_return ctx.json(http::status::ok, run_json(run, true));
}

asio::awaitable<Response> list_discoveries(Discovery& d, Services& s, RequestContext& ctx) {
  ctx.only_query({"limit"});
  int limit = kDefaultListLimit;
  if (auto text = ctx.query_value("limit")) {
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), limit);
    if (ec != std::errc() || end != text->data() + text->size() || limit < 1 ||
        limit > kMaxListLimit)
      throw invalid("\"limit\" must be an integer from 1 to " + std::to_string(kMaxListLimit),
                    "limit");
  }
  db::DiscoveryStore* store = &d.store;
  auto work = [store, limit, scope = ctx.scope(cap_read)] { return store->recent(limit, scope); };
  const std::vector<DiscoveryRun> runs = co_await s.blocking(work);
  json items = json::array();
  for (const auto& run : runs) items.push_back(run_json(run, false));
  co_return ctx.json(http::status::ok, json{{"items", items}, {"next", nullptr}});
}

}  // namespace

void register_discovery_routes(Api& api) {
  Services& s = api.services();
  auto d = std::make_shared<Discovery>(s);
  api.adopt(d);
  Discovery& dr = *d;
  // Runs an instance that stopped (or died) left open are failed now rather than at their next
  // reading; off the caller's thread, and harmless if the database is not reachable yet.
  boost::asio::post(s.blocking_pool, [d] {
    try {
      if (d->service) {
        if (const int n = d->service->fail_abandoned())
          log::warn("discovery runs interrupted by a restart marked failed", {{"runs", n}});
      }
    } catch (const std::exception& e) {
      log::warn("could not check for interrupted discovery runs", {{"error", e.what()}});
    }
  });
  using Fn = asio::awaitable<Response> (*)(Discovery&, Services&, RequestContext&);
  auto bind = [&s, &dr](Fn fn) -> Handler {
    return [&s, &dr, fn](RequestContext& ctx) { return fn(dr, s, ctx); };
  };
  json limit = json::array({{{"name", "limit"},
                             {"in", "query"},
                             {"required", false},
                             {"schema",
                              {{"type", "integer"},
                               {"minimum", 1},
                               {"maximum", kMaxListLimit},
                               {"default", kDefaultListLimit}}}}});

  api.router().add(
      {http::verb::post,
       "/api/v1/discovery",
       Access::operator_,
       bind(start_discovery),
       {"Sweep addresses for BMCs (Redfish, then IPMI) and optionally enroll them; "
        "answers 202 with the run, whose Location to poll",
        json::array(), openapi::ref("DiscoveryRequest"), 202, openapi::ref("DiscoveryRun")}});
  api.router().add({http::verb::get,
                    "/api/v1/discovery",
                    Access::viewer,
                    bind(list_discoveries),
                    {"List recent discovery runs, newest first (without their results)", limit,
                     nullptr, 200, openapi::page_of("DiscoveryRun")}});
  api.router().add({http::verb::get,
                    "/api/v1/discovery/{id}",
                    Access::viewer,
                    bind(show_discovery),
                    {"Show a discovery run: its state, counts and results", json::array(), nullptr,
                     200, openapi::ref("DiscoveryRun")}});
}

}  // namespace ironhold::web

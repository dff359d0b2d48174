// Pushed hardware events (docs/events.md): POST /api/v1/redfish-events/{secret} is where each
// BMC's EventService posts, under the secret of that node's subscription (no API token: a BMC
// has none, and the secret names the node); GET /api/v1/nodes/{id}/event-subscription shows how
// the node's subscription stands.
#include "inventory/error.hpp"
#include "inventory/events/redfish_event.hpp"
#include "inventory/util/log.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/node_access.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

// A BMC's document is small (one event, or a few batched); anything bigger is not one.
constexpr std::size_t kMaxEventDocument = 256 * 1024;

db::EventSubscriptionStore& subscriptions_of(Services& s) {
  if (!s.event_subscriptions)
    throw Error(ErrorKind::unavailable, "this server takes no pushed events");
  return *s.event_subscriptions;
}

asio::awaitable<Response> receive_redfish_event(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  if (ctx.request.body().size() > kMaxEventDocument)
    throw Error(ErrorKind::too_large, "a Redfish Event document is at most " +
                                          std::to_string(kMaxEventDocument / 1024) + " KiB");
  // BMCs disagree on the media type they label events with; the body must be JSON all the same.
  const json document = json::parse(ctx.request.body(), nullptr, false);
  if (document.is_discarded()) throw invalid("the body is not JSON: a Redfish Event was expected");
  const events::PushedEvents pushed = events::read_redfish_event(document);
  db::EventSubscriptionStore* store = &subscriptions_of(s);
  auto record = [store, secret = ctx.path_param("secret"), &pushed] {
    return store->record_pushed(secret, pushed);
  };
  const db::PushRecorded recorded = co_await s.blocking(record);
  log::info("pushed events recorded", {{"node", recorded.node_name},
                                       {"events", recorded.events},
                                       {"duplicates", recorded.duplicates},
                                       {"health_changes", recorded.health_changes}});
  co_return ctx.empty(http::status::no_content);
}

asio::awaitable<Response> event_subscription(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const Node node = co_await authorized_node(s, ctx, ctx.path_param("id"), cap_read);
  db::EventSubscriptionStore* store = &subscriptions_of(s);
  auto work = [store, id = node.parent_id.value_or(node.id)] { return store->find(id); };
  const std::optional<db::EventSubscriptionView> view = co_await s.blocking(work);
  if (!view)
    throw not_found("node \"" + node.name +
                    "\" has no event subscription: only Redfish BMCs that are enrolled (not "
                    "retired) have one");
  co_return ctx.json(http::status::ok, to_json(*view));
}

}  // namespace

void register_redfish_event_routes(Api& api) {
  Services& s = api.services();
  api.router().add(
      {http::verb::post,
       "/api/v1/redfish-events/{secret}",
       Access::anyone,
       [&s](RequestContext& ctx) { return receive_redfish_event(s, ctx); },
       {"Where a BMC's EventService posts Redfish Event documents, under its node's subscription "
        "secret (no API token; 204, or 404 for a secret no subscription has)",
        json::array(),
        {{"type", "object"},
         {"required", {"Events"}},
         {"properties",
          {{"Context", {{"type", "string"}}},
           {"Events", {{"type", "array"}, {"items", {{"type", "object"}}}}}}}},
        204,
        nullptr}});
  api.router().add(
      {http::verb::get,
       "/api/v1/nodes/{id}/event-subscription",
       Access::viewer,
       [&s](RequestContext& ctx) { return event_subscription(s, ctx); },
       {"How the node's subscription to its BMC's events stands (a further System: its BMC's)",
        json::array(),
        nullptr,
        200,
        {{"type", "object"},
         {"properties",
          {{"node_id", {{"type", "string"}}},
           {"node", {{"type", "string"}}},
           {"project", {{"type", "string"}}},
           {"state",
            {{"type", "string"},
             {"enum", {"pending", "active", "unsupported", "failing", "removing"}}}},
           {"bmc_subscription", {{"type", {"string", "null"}}}},
           {"destination_prefix", {{"type", {"string", "null"}}}},
           {"last_error", {{"type", {"string", "null"}}}},
           {"failures", {{"type", "integer"}}},
           {"subscribed_at", {{"type", {"string", "null"}}}},
           {"checked_at", {{"type", {"string", "null"}}}},
           {"next_check", {{"type", {"string", "null"}}}},
           {"last_event_at", {{"type", {"string", "null"}}}},
           {"events_received", {{"type", "integer"}}}}}}}});
}

}  // namespace ironhold::web

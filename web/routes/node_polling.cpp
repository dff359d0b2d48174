// Asking the poller for something now: POST /api/v1/nodes/{id}/inspect (re-read the full
// inventory, in any lifecycle state) and POST /api/v1/nodes/{id}/tls/repin (trust the BMC's
// current certificate after an admin has checked why it changed).
#include "inventory/error.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/node_access.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

db::PollStore& polls(Services& s) {
  if (!s.polls) throw Error(ErrorKind::unavailable, "this server runs no poller");
  return *s.polls;
}

// A further System behind another node's BMC is read through that node.
asio::awaitable<Node> polled_node(Services& s, RequestContext& ctx, unsigned capability) {
  Node node = co_await authorized_node(s, ctx, ctx.path_param("id"), capability);
  if (node.retired_at) throw conflict("node \"" + node.name + "\" is retired");
  if (node.source != Source::bmc)
    throw conflict("node \"" + node.name + "\" is a cloud instance; its account's sync reads it");
  if (node.parent_id) {
    auto parent_work = [&s, id = *node.parent_id] { return s.nodes.get(id); };
    Node parent = co_await s.blocking(parent_work);
    co_return parent;
  }
  co_return node;
}

asio::awaitable<Response> inspect_node(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const Node node = co_await polled_node(s, ctx, cap_act);
  auto work = [&s, id = node.id] {
    polls(s).request_inspection(id);
    return polls(s).schedule(id);
  };
  const auto schedule = co_await s.blocking(work);
  json body = {{"node_id", node.id}, {"node_name", node.name}, {"poll", "inventory"}};
  for (const auto& entry : schedule)
    if (entry.kind == db::PollKind::inventory) body["due"] = entry.next_due;
  Response response = ctx.json(http::status::accepted, body);
  response.set(http::field::location, "/api/v1/nodes/" + node.id);
  co_return response;
}

asio::awaitable<Response> repin_node(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const Node node = co_await polled_node(s, ctx, cap_manage);
  const bool pins_tls = !node.options.is_object() || node.options.value("tls", "pin") == "pin";
  if (!pins_tls && !node.ssh_host_key)
    throw conflict("node \"" + node.name + "\" does not pin its BMC's certificate (tls: " +
                   node.options.value("tls", "") + ") and has no SSH host key pinned");
  if (pins_tls)
    ctx.audit_details["previous_fingerprint"] =
        node.tls_fingerprint ? json(*node.tls_fingerprint) : json(nullptr);
  ctx.audit_details["previous_ssh_host_key"] =
      node.ssh_host_key ? json(*node.ssh_host_key) : json(nullptr);
  auto work = [&s, id = node.id, pins_tls] {
    polls(s).clear_pins(id, pins_tls);
    return s.nodes.get(id);
  };
  const Node after = co_await s.blocking(work);
  co_return ctx.json(http::status::ok, to_json(after));
}

}  // namespace

void register_node_polling_routes(Api& api) {
  Services& s = api.services();
  api.router().add(
      {http::verb::post,
       "/api/v1/nodes/{id}/inspect",
       Access::operator_,
       [&s](RequestContext& ctx) { return inspect_node(s, ctx); },
       {"Re-read a node's full inventory now (202; the node shows the result when the poll ends)",
        json::array(),
        nullptr,
        202,
        {{"type", "object"},
         {"properties",
          {{"node_id", {{"type", "string"}}},
           {"node_name", {{"type", "string"}}},
           {"poll", {{"type", "string"}}},
           {"due", {{"type", "string"}}}}}}}});
  api.router().add(
      {http::verb::post,
       "/api/v1/nodes/{id}/tls/repin",
       Access::admin,
       [&s](RequestContext& ctx) { return repin_node(s, ctx); },
       {"Forget the pinned BMC certificate and SSH host key: the next contact pins what it "
        "presents then",
        json::array(), nullptr, 200, openapi::ref("Node")}});
}

}  // namespace ironhold::web

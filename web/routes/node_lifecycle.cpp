// POST /api/v1/nodes/{id}/lifecycle {"action": "manage|provide|release|retry|retire"}: the
// operator's lifecycle actions, each checked against the one transition table; an illegal one is
// 409 naming the node's state and the actions it allows.
#include "inventory/db/lifecycle_store.hpp"
#include "inventory/model/json_fields.hpp"
#include "inventory/tasks/task_engine.hpp"
#include "web/openapi.hpp"
#include "web/routes/node_access.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

asio::awaitable<Response> lifecycle_action(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "node";
  ctx.target_name = ctx.path_param("id");
  if (!s.lifecycle) throw Error(ErrorKind::unavailable, "lifecycle actions are unavailable here");
  const json body = ctx.json_body();
  if (!body.is_object()) throw invalid("the body must be a JSON object");
  reject_unknown_keys(body, {"action"}, "", ErrorKind::invalid);
  const std::string name = required_string(body, "action");
  const auto action = parse_enum<LifecycleAction>(name);
  if (!action)
    throw unprocessable("\"action\" must be " + join_names(enum_names<LifecycleAction>()),
                        "action");
  ctx.audit_details["action"] = name;
  db::LifecycleStore* store = s.lifecycle;
  const Node node = co_await authorized_node(s, ctx, ctx.path_param("id"), cap_act);
  std::string key = node.id;
  std::string actor = ctx.actor();
  auto work = [store, key, action, actor] { return store->apply(key, *action, actor); };
  const db::LifecycleOutcome out = co_await s.blocking(work);
  ctx.set_target("node", out.node.id, out.node.name);
  ctx.audit_details["from"] = to_string(out.from);
  ctx.audit_details["to"] = to_string(out.node.lifecycle);
  json answer = {{"node", to_json(out.node)}, {"from", to_string(out.from)}};
  if (out.task) {
    answer["task"] = to_json(*out.task);
    ctx.audit_details["task_id"] = out.task->id;
    if (s.task_engine) s.task_engine->wake();
    auto res = ctx.json(http::status::accepted, answer);
    res.set(http::field::location, "/api/v1/tasks/" + out.task->id);
    co_return res;
  }
  co_return ctx.json(http::status::ok, answer);
}

}  // namespace

void register_node_lifecycle_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  api.router().add(
      {http::verb::post,
       "/api/v1/nodes/{id}/lifecycle",
       Access::operator_,
       bind(lifecycle_action),
       {"Move a node through its lifecycle: manage (inspect), provide, release "
        "(clean, then available), retry, retire; 409 names the allowed actions",
        json::array(), openapi::ref("LifecycleRequest"), 200, openapi::ref("LifecycleChange")}});
}

}  // namespace ironhold::web

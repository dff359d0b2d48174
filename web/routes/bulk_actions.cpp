// POST /api/v1/actions: one action on every node a selector matches, as one task per node under a
// bulk_id, at most max_parallel of them running at once. dry_run shows what would be matched and
// does nothing. An empty selector is refused: the whole fleet is never selected by accident.
#include "inventory/model/json_fields.hpp"
#include "inventory/tasks/task_engine.hpp"
#include "web/idempotency.hpp"
#include "web/openapi.hpp"
#include "web/routes/routes.hpp"
#include "web/routes/task_views.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

json node_brief(const Node& n) {
  return {{"id", n.id},
          {"name", n.name},
          {"source", to_string(n.source)},
          {"driver", n.driver},
          {"power_state", to_string(n.power_state)},
          {"health", to_string(n.health)},
          {"lifecycle", to_string(n.lifecycle)},
          {"maintenance", n.maintenance}};
}

int max_parallel_of(const json& body) {
  auto it = body.find("max_parallel");
  if (it == body.end() || it->is_null()) return 8;
  if (!it->is_number_integer()) throw wrong_type("max_parallel", "a whole number", *it);
  const auto n = it->get<long long>();
  if (n < 1 || n > 1000)
    throw unprocessable("\"max_parallel\" must be between 1 and 1000", "max_parallel");
  return static_cast<int>(n);
}

asio::awaitable<Response> bulk_action(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "bulk_action";
  db::TaskStore* store = &task_store_of(s);
  const json body = ctx.json_body();
  if (!body.is_object()) throw invalid("the body must be a JSON object");
  reject_unknown_keys(body, {"selector", "action", "parameters", "max_parallel", "dry_run"}, "",
                      ErrorKind::invalid);
  if (!body.contains("selector")) throw invalid("\"selector\" is required", "selector");
  NodeFilter filter = parse_node_selector(body["selector"]);
  // Only nodes of the projects where the caller may act are selected.
  filter.scope = ctx.scope(cap_act);
  if (filter.scope && filter.scope->size() == 1) ctx.target_project = filter.scope->front();
  const std::string action = required_string(body, "action");
  // The actions a bulk request may take; cleaning belongs to the lifecycle (release).
  const auto kind = parse_enum<TaskKind>(action);
  // Firmware goes to many nodes through a rollout (canary, batches, health gate), not at once.
  if (!kind || *kind == TaskKind::clean || *kind == TaskKind::firmware)
    throw unprocessable(
        "\"action\" must be power, boot, identify, reprovision, inspect, bios or credentials",
        "action");
  bool dry_run = false;
  if (auto it = body.find("dry_run"); it != body.end() && !it->is_null()) {
    if (!it->is_boolean()) throw wrong_type("dry_run", "true or false", *it);
    dry_run = it->get<bool>();
  }
  db::NewBulk bulk;
  bulk.task.kind = *kind;
  try {
    bulk.task.parameters = parse_task_parameters(*kind, body.value("parameters", json::object()));
  } catch (const Error& e) {
    throw Error(e.kind(), e.what(), e.field().empty() ? "parameters" : "parameters." + e.field());
  }
  bulk.task.requested_by = ctx.actor();
  bulk.selector = body["selector"];
  bulk.filter = filter;
  bulk.max_parallel = max_parallel_of(body);

  if (dry_run) {
    auto work = [store, filter] { return store->select_nodes(filter); };
    const std::vector<Node> nodes = co_await s.blocking(work);
    json listed = json::array();
    for (const auto& n : nodes) listed.push_back(node_brief(n));
    co_return ctx.json(http::status::ok,
                       {{"dry_run", true}, {"matched", nodes.size()}, {"nodes", listed}});
  }

  ctx.audit_details["selector"] = bulk.selector;
  ctx.audit_details["action"] = action;
  ctx.audit_details["parameters"] = bulk.task.parameters.parameters;
  ctx.audit_details["max_parallel"] = bulk.max_parallel;
  const auto key = idempotency_key(ctx, body, s.request_digest);
  if (key) ctx.audit_details["idempotency_key"] = key->key;
  auto work = [store, bulk, key] { return store->create_bulk(bulk, key); };
  const db::CreatedTasks created = co_await s.blocking(work);
  json ids = json::array();
  for (const auto& t : created.tasks) ids.push_back(t.id);
  const std::string bulk_id = created.bulk_id.value_or("");
  ctx.set_target("bulk_action", bulk_id, action);
  ctx.audit_details["matched"] = created.tasks.size();
  if (s.task_engine && !created.replayed) s.task_engine->wake();
  auto res = ctx.json(http::status::accepted,
                      {{"bulk_id", created.bulk_id ? json(bulk_id) : json(nullptr)},
                       {"matched", created.tasks.size()},
                       {"tasks", ids}});
  res.set(http::field::location, "/api/v1/tasks?bulk_id=" + bulk_id);
  if (created.replayed) res.set("Idempotent-Replayed", "true");
  co_return res;
}

}  // namespace

void register_bulk_action_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  const json params = json::array(
      {{{"name", "Idempotency-Key"},
        {"in", "header"},
        {"required", false},
        {"description", "the same key and body return the same bulk action for 24 hours"},
        {"schema", {{"type", "string"}, {"maxLength", 255}}}}});
  api.router().add({http::verb::post,
                    "/api/v1/actions",
                    Access::operator_,
                    bind(bulk_action),
                    {"One action on every node a selector matches (202 with the bulk_id and its "
                     "tasks; dry_run: 200 with the matched nodes, nothing done)",
                     params, openapi::ref("BulkActionRequest"), 202, openapi::ref("BulkAction")}});
}

}  // namespace ironhold::web

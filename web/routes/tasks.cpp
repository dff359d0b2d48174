// /api/v1/tasks: every action's task, newest first, with its steps; and cancellation.
#include "inventory/tasks/task_engine.hpp"
#include "web/cursor.hpp"
#include "web/openapi.hpp"
#include "web/routes/routes.hpp"
#include "web/routes/task_views.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

template <class E>
std::optional<E> enum_param(const RequestContext& ctx, const char* name) {
  auto text = ctx.query_value(name);
  if (!text) return std::nullopt;
  auto value = parse_enum<E>(*text);
  if (!value)
    throw invalid("\"" + std::string(name) + "\" must be " + join_names(enum_names<E>()), name);
  return value;
}

db::TaskFilter task_filter(const RequestContext& ctx) {
  db::TaskFilter f;
  if (auto cursor = ctx.query_value("cursor")) {
    ctx.only_query({"cursor"});
    const json doc = decode_cursor_json(*cursor);
    try {
      if (doc.contains("node")) f.node = doc.at("node").get<std::string>();
      if (doc.contains("state"))
        f.state = parse_enum<TaskState>(doc.at("state").get<std::string>());
      if (doc.contains("kind")) f.kind = parse_enum<TaskKind>(doc.at("kind").get<std::string>());
      if (doc.contains("bulk_id")) f.bulk_id = doc.at("bulk_id").get<std::string>();
      f.limit = doc.at("limit").get<int>();
      f.after_created_at = doc.at("t").get<std::string>();
      f.after_id = doc.at("i").get<std::string>();
    } catch (const json::exception&) {
      throw invalid(
          "the cursor is not valid: use the \"next\" value of the previous page unchanged",
          "cursor");
    }
    if (f.limit < 1 || f.limit > 1000 || !is_uuid(*f.after_id) ||
        (f.bulk_id && !is_uuid(*f.bulk_id)))
      throw invalid(
          "the cursor is not valid: use the \"next\" value of the previous page unchanged",
          "cursor");
    return f;
  }
  ctx.only_query({"node", "state", "kind", "bulk_id", "limit"});
  f.node = ctx.query_value("node");
  f.state = enum_param<TaskState>(ctx, "state");
  f.kind = enum_param<TaskKind>(ctx, "kind");
  f.bulk_id = ctx.query_value("bulk_id");
  if (f.bulk_id && !is_uuid(*f.bulk_id)) throw invalid("\"bulk_id\" must be a UUID", "bulk_id");
  f.limit = ctx.limit_param(100, 1000);
  return f;
}

asio::awaitable<Response> list_tasks(Services& s, RequestContext& ctx) {
  db::TaskStore* store = &task_store_of(s);
  db::TaskFilter filter = task_filter(ctx);
  filter.scope = ctx.scope(cap_read);
  auto work = [store, filter] { return store->list(filter); };
  const db::TaskPage page = co_await s.blocking(work);
  json items = json::array();
  for (const auto& t : page.items) items.push_back(to_json(t));
  json next = nullptr;
  if (page.more && !page.items.empty()) {
    json doc = {{"limit", filter.limit},
                {"t", page.items.back().created_at.value_or("")},
                {"i", page.items.back().id}};
    if (filter.node) doc["node"] = *filter.node;
    if (filter.state) doc["state"] = to_string(*filter.state);
    if (filter.kind) doc["kind"] = to_string(*filter.kind);
    if (filter.bulk_id) doc["bulk_id"] = *filter.bulk_id;
    next = encode_cursor_json(doc);
  }
  co_return ctx.json(http::status::ok, {{"items", items}, {"next", next}});
}

asio::awaitable<Response> show_task(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::TaskStore* store = &task_store_of(s);
  std::string id = ctx.path_param("id");
  auto work = [store, id] { return store->get(id); };
  const Task task = co_await s.blocking(work);
  ctx.require(cap_read, task.project.value_or(""), "no task \"" + id + "\"");
  co_return ctx.json(http::status::ok, to_json(task));
}

asio::awaitable<Response> cancel_task(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "task";
  ctx.target_name = ctx.path_param("id");
  db::TaskStore* store = &task_store_of(s);
  std::string id = ctx.path_param("id");
  std::string actor = ctx.actor();
  auto load = [store, id] { return store->get(id); };
  const Task before = co_await s.blocking(load);
  ctx.require(cap_act, before.project.value_or(""), "no task \"" + id + "\"");
  auto work = [store, id, actor] { return store->request_cancel(id, actor); };
  const Task task = co_await s.blocking(work);
  ctx.set_target("task", task.id, task.node_name.value_or(""));
  // 200: it never started and is cancelled; 202: the worker stops at its next step.
  co_return ctx.json(task.state == TaskState::cancelled ? http::status::ok : http::status::accepted,
                     to_json(task));
}

}  // namespace

void register_task_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  auto query = [](const char* name, const char* description) {
    return json{{"name", name},
                {"in", "query"},
                {"required", false},
                {"description", description},
                {"schema", {{"type", "string"}}}};
  };
  const json list_params = json::array(
      {query("node", "a node's id or name"),
       query("state", "queued, running, succeeded, failed or cancelled"),
       query("kind", "power, boot, identify, reprovision, inspect, clean or firmware"),
       query("bulk_id", "the tasks of one bulk action"), query("limit", "1 to 1000, default 100"),
       query("cursor", "the previous page's next value, alone")});
  api.router().add(
      {http::verb::get,
       "/api/v1/tasks",
       Access::viewer,
       bind(list_tasks),
       {"List tasks, newest first", list_params, nullptr, 200, openapi::page_of("Task")}});
  api.router().add(
      {http::verb::get,
       "/api/v1/tasks/{id}",
       Access::viewer,
       bind(show_task),
       {"Show a task with its steps", json::array(), nullptr, 200, openapi::ref("Task")}});
  api.router().add(
      {http::verb::post,
       "/api/v1/tasks/{id}/cancel",
       Access::operator_,
       bind(cancel_task),
       {"Cancel a task: at once when queued (200), at its next step when running (202)",
        json::array(), nullptr, 202, openapi::ref("Task")}});
}

}  // namespace ironhold::web

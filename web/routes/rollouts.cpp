// Firmware rollouts: POST /api/v1/firmware/rollouts starts one (canary first, then batches, each
// node's update followed by a health gate), GET lists them or shows one with per-node progress,
// and POST …/{id}/pause|resume|abort steer it. The rollout runner moves them on.
#include "inventory/tasks/task_engine.hpp"
#include "web/idempotency.hpp"
#include "web/openapi.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

db::RolloutStore& rollouts_of(Services& s) {
  if (!s.rollouts) throw Error(ErrorKind::unavailable, "this server runs no firmware rollouts");
  return *s.rollouts;
}

// The rollout the path names, when the caller may do `capability` in its project (otherwise the
// answer for a rollout that does not exist, or 403 when the caller may only read).
asio::awaitable<Rollout> authorized_rollout(Services& s, RequestContext& ctx, unsigned capability) {
  db::RolloutStore* store = &rollouts_of(s);
  const std::string& id = ctx.path_param("id");
  ctx.target_type = "firmware_rollout";
  ctx.target_name = id;
  auto work = [store, id] { return store->get(id); };
  Rollout rollout = co_await s.blocking(work);
  ctx.require(capability, rollout.project, "no rollout \"" + id + "\"");
  co_return rollout;
}

asio::awaitable<Response> start(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "firmware_rollout";
  db::RolloutStore* store = &rollouts_of(s);
  json body = ctx.json_body();
  if (body.is_object() && !body.contains("project")) body["project"] = ctx.default_project(cap_act);
  const RolloutSpec spec = parse_rollout_spec(body);
  ctx.require(cap_act, spec.project, "no project is named \"" + spec.project + "\"");
  ctx.audit_details = {{"image", spec.image},
                       {"selector", spec.selector},
                       {"canary", spec.canary},
                       {"batch_size", spec.batch_size},
                       {"max_parallel_per_rack", spec.max_parallel_per_rack},
                       {"max_failures", spec.max_failures},
                       {"health_gate_seconds", spec.health_gate_seconds},
                       {"task_parameters", spec.task_parameters}};
  const auto key = idempotency_key(ctx, body, s.request_digest);
  if (key) ctx.audit_details["idempotency_key"] = key->key;
  auto work = [store, spec, key, actor = ctx.actor()] {
    auto created = store->create(spec, actor, key);
    if (created.replayed) return created;
    // The canary's task is created now rather than at the runner's next tick.
    store->advance();
    created.rollout = store->get(created.rollout.id);
    return created;
  };
  const db::RolloutStore::Created created = co_await s.blocking(work);
  const Rollout& rollout = created.rollout;
  ctx.set_target("firmware_rollout", rollout.id, rollout.image_name);
  ctx.audit_details["matched"] = rollout.nodes.size();
  if (created.replayed) ctx.audit_details["replayed"] = true;
  if (s.task_engine && !created.replayed) s.task_engine->wake();
  auto res =
      ctx.json(created.replayed ? http::status::ok : http::status::created, to_json(rollout, true));
  res.set(http::field::location, "/api/v1/firmware/rollouts/" + rollout.id);
  if (created.replayed) res.set("Idempotent-Replayed", "true");
  co_return res;
}

asio::awaitable<Response> list(Services& s, RequestContext& ctx) {
  ctx.only_query({"limit"});
  const int limit = ctx.limit_param(50, 500);
  db::RolloutStore* store = &rollouts_of(s);
  auto work = [store, limit, scope = ctx.scope(cap_read)] { return store->list(limit, scope); };
  const std::vector<Rollout> rollouts = co_await s.blocking(work);
  json items = json::array();
  for (const auto& r : rollouts) items.push_back(to_json(r, false));
  co_return ctx.json(http::status::ok, {{"items", std::move(items)}});
}

asio::awaitable<Response> show(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const Rollout rollout = co_await authorized_rollout(s, ctx, cap_read);
  co_return ctx.json(http::status::ok, to_json(rollout, true));
}

enum class Steer { pause, resume, abort };

asio::awaitable<Response> steer(Services& s, RequestContext& ctx, Steer how) {
  ctx.only_query({});
  db::RolloutStore* store = &rollouts_of(s);
  const Rollout current = co_await authorized_rollout(s, ctx, cap_act);
  auto work = [store, how, id = current.id, actor = ctx.actor()] {
    switch (how) {
      case Steer::pause:
        return store->pause(id, actor);
      case Steer::resume: {
        store->resume(id, actor);
        store->advance();  // the next nodes start now
        return store->get(id);
      }
      case Steer::abort:
        break;
    }
    return store->abort(id, actor);
  };
  const Rollout rollout = co_await s.blocking(work);
  ctx.set_target("firmware_rollout", rollout.id, rollout.image_name);
  if (how == Steer::resume && s.task_engine) s.task_engine->wake();
  co_return ctx.json(http::status::ok, to_json(rollout, true));
}

asio::awaitable<Response> pause(Services& s, RequestContext& ctx) {
  return steer(s, ctx, Steer::pause);
}
asio::awaitable<Response> resume(Services& s, RequestContext& ctx) {
  return steer(s, ctx, Steer::resume);
}
asio::awaitable<Response> abort_rollout(Services& s, RequestContext& ctx) {
  return steer(s, ctx, Steer::abort);
}

json rollout_schema() {
  const json text = {{"type", "string"}};
  const json nullable_text = {{"type", {"string", "null"}}};
  const json node = {{"type", "object"},
                     {"properties",
                      {{"node_id", text},
                       {"node_name", text},
                       {"rack", nullable_text},
                       {"batch", {{"type", "integer"}, {"description", "0: the canary batch"}}},
                       {"canary", {{"type", "boolean"}}},
                       {"state", {{"type", "string"}, {"enum", enum_names<RolloutNodeState>()}}},
                       {"task_id", nullable_text},
                       {"from_version", nullable_text},
                       {"health_before", nullable_text},
                       {"gate_until", nullable_text},
                       {"error", nullable_text},
                       {"started_at", nullable_text},
                       {"finished_at", nullable_text}}}};
  return {{"type", "object"},
          {"properties",
           {{"id", text},
            {"image", {{"type", "object"}}},
            {"selector", {{"type", "object"}}},
            {"state", {{"type", "string"}, {"enum", enum_names<RolloutState>()}}},
            {"halt_reason", nullable_text},
            {"counts", {{"type", "object"}, {"description", "nodes per state"}}},
            {"matched", {{"type", "integer"}}},
            {"batches", {{"type", "integer"}}},
            {"nodes", {{"type", "array"}, {"items", node}}}}}};
}

json rollout_request() {
  const auto integer = [](int min, int max, int fallback, const char* what) {
    return json{{"type", "integer"},
                {"minimum", min},
                {"maximum", max},
                {"default", fallback},
                {"description", what}};
  };
  return {{"type", "object"},
          {"required", {"image", "selector"}},
          {"additionalProperties", false},
          {"properties",
           {{"image", {{"type", "string"}, {"format", "uuid"}}},
            {"selector",
             {{"type", "object"},
              {"minProperties", 1},
              {"description", "the node list's filters by the same names, as for bulk actions"}}},
            {"canary", integer(0, 100, 1, "nodes updated first, alone; any failure halts")},
            {"batch_size", integer(1, 1000, 10, "nodes per batch after the canary")},
            {"max_parallel_per_rack",
             integer(1, 1000, 2, "nodes of one rack updating or in their gate at once")},
            {"max_failures", integer(0, 10000, 0, "failed nodes tolerated before halting")},
            {"health_gate_seconds",
             integer(0, 86400, 300, "how long each node must stay healthy and on the new version")},
            {"reset", {{"type", "boolean"}, {"default", true}}},
            {"timeout_s", integer(10, 14400, 3600, "each node's update task")},
            {"transfer",
             {{"type", "string"},
              {"enum", {"auto", "pull", "push"}},
              {"default", "auto"},
              {"description", "how images reach the BMCs (as on POST /nodes/{id}/firmware)"}}}}}};
}

}  // namespace

void register_rollout_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  const json none = json::array();
  const json idempotency = json::array({{{"name", "Idempotency-Key"},
                                         {"in", "header"},
                                         {"required", false},
                                         {"description",
                                          "the same key and body return the same rollout (200) "
                                          "for 24 hours; another body is 422"},
                                         {"schema", {{"type", "string"}, {"maxLength", 255}}}}});
  api.router().add({http::verb::post,
                    "/api/v1/firmware/rollouts",
                    Access::operator_,
                    bind(start),
                    {"Start a staged firmware rollout: canary nodes first, then batches; each "
                     "node's update is a firmware task followed by a health gate",
                     idempotency, rollout_request(), 201, rollout_schema()}});
  api.router().add(
      {http::verb::get,
       "/api/v1/firmware/rollouts",
       Access::viewer,
       bind(list),
       {"Firmware rollouts, newest first (?limit=, default 50)",
        none,
        nullptr,
        200,
        {{"type", "object"},
         {"properties", {{"items", {{"type", "array"}, {"items", rollout_schema()}}}}}}}});
  api.router().add({http::verb::get,
                    "/api/v1/firmware/rollouts/{id}",
                    Access::viewer,
                    bind(show),
                    {"A rollout with per-node progress", none, nullptr, 200, rollout_schema()}});
  api.router().add({http::verb::post,
                    "/api/v1/firmware/rollouts/{id}/pause",
                    Access::operator_,
                    bind(pause),
                    {"Pause a running rollout: no further node starts; updates under way end", none,
                     nullptr, 200, rollout_schema()}});
  api.router().add({http::verb::post,
                    "/api/v1/firmware/rollouts/{id}/resume",
                    Access::operator_,
                    bind(resume),
                    {"Resume a paused or halted rollout (its failures so far are accepted)", none,
                     nullptr, 200, rollout_schema()}});
  api.router().add({http::verb::post,
                    "/api/v1/firmware/rollouts/{id}/abort",
                    Access::operator_,
                    bind(abort_rollout),
                    {"Abort a rollout: pending nodes and queued updates are cancelled; updates "
                     "already running end as they end",
                     none, nullptr, 200, rollout_schema()}});
}

}  // namespace ironhold::web

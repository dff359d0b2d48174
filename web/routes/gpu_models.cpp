// The GPU catalogue (migration 0024): GET/PUT/DELETE /api/v1/gpu-models/{name}, its aliases
// (POST/DELETE /api/v1/gpu-models/{name}/aliases) and the strings nodes report that no alias maps
// (GET /api/v1/gpu-models/unmapped). Reading is for every signed-in viewer (counts are of the
// caller's projects); changing the catalogue, which renames GPUs across every project, is for
// global admins, and each change is audited with the nodes it re-resolved.
#include "web/openapi.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

db::GpuCatalogueStore& catalogue_of(Services& s) {
  if (!s.gpu_catalogue) throw Error(ErrorKind::unavailable, "this server keeps no GPU catalogue");
  return *s.gpu_catalogue;
}

json change_json(const db::GpuCatalogueChange& change) {
  json out = to_json(change.model);
  out["nodes_remapped"] = change.nodes_remapped;
  return out;
}

void audit_change(RequestContext& ctx, const db::GpuCatalogueChange& change, json details) {
  ctx.set_target("gpu_model", change.model.name, change.model.name);
  details["nodes_remapped"] = change.nodes_remapped;
  ctx.audit_details = std::move(details);
}

asio::awaitable<Response> list_models(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::GpuCatalogueStore* store = &catalogue_of(s);
  auto work = [store, scope = ctx.scope(cap_read)] { return store->list(scope); };
  const auto models = co_await s.blocking(work);
  json items = json::array();
  for (const auto& m : models) items.push_back(to_json(m));
  co_return ctx.json(http::status::ok, {{"items", std::move(items)}});
}

asio::awaitable<Response> get_model(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::GpuCatalogueStore* store = &catalogue_of(s);
  auto work = [store, name = ctx.path_param("name"), scope = ctx.scope(cap_read)] {
    return store->get(name, scope);
  };
  co_return ctx.json(http::status::ok, to_json(co_await s.blocking(work)));
}

asio::awaitable<Response> put_model(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const std::string path_name = ctx.path_param("name");
  const GpuModelSpec spec = parse_gpu_model_spec(path_name, ctx.json_body());
  db::GpuCatalogueStore* store = &catalogue_of(s);
  auto work = [store, path_name, spec, actor = ctx.actor()] {
    return store->put(path_name, spec, actor);
  };
  const auto change = co_await s.blocking(work);
  json details = to_json(change.model);
  details.erase("nodes");
  details.erase("gpus");
  if (spec.name != path_name) details["renamed_from"] = path_name;
  audit_change(ctx, change, std::move(details));
  co_return ctx.json(change.created ? http::status::created : http::status::ok,
                     change_json(change));
}

asio::awaitable<Response> delete_model(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::GpuCatalogueStore* store = &catalogue_of(s);
  auto work = [store, name = ctx.path_param("name")] { return store->remove(name); };
  const auto change = co_await s.blocking(work);
  json aliases = json::array();
  for (const auto& a : change.model.aliases) aliases.push_back(to_json(a));
  audit_change(ctx, change, {{"aliases", std::move(aliases)}});
  co_return ctx.json(http::status::ok,
                     {{"name", change.model.name}, {"nodes_remapped", change.nodes_remapped}});
}

asio::awaitable<Response> add_alias(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const GpuAlias alias = parse_gpu_alias(ctx.json_body());
  db::GpuCatalogueStore* store = &catalogue_of(s);
  auto work = [store, name = ctx.path_param("name"), alias, actor = ctx.actor()] {
    return store->add_alias(name, alias, actor);
  };
  const auto change = co_await s.blocking(work);
  audit_change(ctx, change, {{"added_alias", to_json(alias)}});
  co_return ctx.json(http::status::ok, change_json(change));
}

asio::awaitable<Response> remove_alias(Services& s, RequestContext& ctx) {
  ctx.only_query({"kind", "alias"});
  GpuAlias alias{ctx.query_value("kind").value_or("gpu"), ctx.query_value("alias").value_or("")};
  if (alias.alias.empty()) throw invalid("?alias= names the alias to remove", "alias");
  check_gpu_alias(alias, "alias");
  db::GpuCatalogueStore* store = &catalogue_of(s);
  auto work = [store, name = ctx.path_param("name"), alias] {
    return store->remove_alias(name, alias);
  };
  const auto change = co_await s.blocking(work);
  audit_change(ctx, change, {{"removed_alias", to_json(alias)}});
  co_return ctx.json(http::status::ok, change_json(change));
}

asio::awaitable<Response> unmapped(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::GpuCatalogueStore* store = &catalogue_of(s);
  auto work = [store] { return store->unmapped(); };
  const auto found = co_await s.blocking(work);
  json items = json::array();
  for (const auto& u : found) items.push_back(to_json(u));
  co_return ctx.json(http::status::ok, {{"items", std::move(items)}});
}

json alias_schema() {
  return {
      {"type", "object"},
      {"required", {"alias"}},
      {"properties",
       {{"kind", {{"type", "string"}, {"enum", {"gpu", "instance_type"}}}},
        {"alias",
         {{"type", "string"},
          {"description", "the string as a driver gives it; a final '*' makes it a prefix"}}}}}};
}

json model_schema() {
  return {{"type", "object"},
          {"properties",
           {{"name", {{"type", "string"}}},
            {"vendor", {{"type", "string"}}},
            {"family", {{"type", "string"}}},
            {"model", {{"type", "string"}}},
            {"memory_gib", {{"type", {"number", "null"}}}},
            {"form_factor", {{"type", "string"}, {"enum", {"SXM", "PCIe", "OAM", "other"}}}},
            {"aliases", {{"type", "array"}, {"items", alias_schema()}}},
            {"nodes", {{"type", "integer"}}},
            {"gpus", {{"type", "integer"}}},
            {"nodes_remapped",
             {{"type", "integer"},
              {"description", "after a change: the nodes whose gpu_model it changed"}}},
            {"updated_by", {{"type", {"string", "null"}}}},
            {"updated_at", {{"type", "string"}}}}}};
}

json model_body_schema() {
  return {{"type", "object"},
          {"required", {"vendor", "family", "model", "form_factor"}},
          {"properties",
           {{"name", {{"type", "string"}, {"description", "a new name: renames the model"}}},
            {"vendor", {{"type", "string"}}},
            {"family", {{"type", "string"}}},
            {"model", {{"type", "string"}}},
            {"memory_gib", {{"type", {"number", "null"}}}},
            {"form_factor", {{"type", "string"}, {"enum", {"SXM", "PCIe", "OAM", "other"}}}},
            {"aliases",
             {{"type", "array"},
              {"items", alias_schema()},
              {"description", "replaces the model's aliases; absent: they stay"}}}}}};
}

}  // namespace

void register_gpu_model_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  const json none = json::array();
  const json list_schema = {
      {"type", "object"},
      {"properties", {{"items", {{"type", "array"}, {"items", model_schema()}}}}}};
  // Registered before /gpu-models/{name}, which would otherwise take "unmapped" for a name.
  api.router().add(
      {http::verb::get,
       "/api/v1/gpu-models/unmapped",
       Access::global_admin,
       bind(unmapped),
       {"GPU names and instance types nodes report that no alias maps to a catalogue model: "
        "map each with POST /api/v1/gpu-models/{name}/aliases",
        none,
        nullptr,
        200,
        {{"type", "object"},
         {"properties",
          {{"items",
            {{"type", "array"},
             {"items",
              {{"type", "object"},
               {"properties",
                {{"name", {{"type", "string"}}},
                 {"nodes", {{"type", "integer"}}},
                 {"source", {{"type", "object"}}},
                 {"drivers", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                 {"instance_types", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                 {"example_nodes",
                  {{"type", "array"}, {"items", {{"type", "string"}}}}}}}}}}}}}}}});
  api.router().add({http::verb::get,
                    "/api/v1/gpu-models",
                    Access::viewer,
                    bind(list_models),
                    {"The GPU catalogue: canonical models, their aliases and the nodes of each",
                     none, nullptr, 200, list_schema}});
  api.router().add({http::verb::get,
                    "/api/v1/gpu-models/{name}",
                    Access::viewer,
                    bind(get_model),
                    {"One GPU model of the catalogue", none, nullptr, 200, model_schema()}});
  api.router().add({http::verb::put,
                    "/api/v1/gpu-models/{name}",
                    Access::global_admin,
                    bind(put_model),
                    {"Create or replace a GPU model (201 when created); nodes are re-resolved",
                     none, model_body_schema(), 200, model_schema()}});
  api.router().add(
      {http::verb::delete_,
       "/api/v1/gpu-models/{name}",
       Access::global_admin,
       bind(delete_model),
       {"Remove a GPU model and its aliases; its nodes fall back to their raw names",
        none,
        nullptr,
        200,
        {{"type", "object"},
         {"properties",
          {{"name", {{"type", "string"}}}, {"nodes_remapped", {{"type", "integer"}}}}}}}});
  api.router().add({http::verb::post,
                    "/api/v1/gpu-models/{name}/aliases",
                    Access::global_admin,
                    bind(add_alias),
                    {"Map a GPU name or an instance type to this model", none, alias_schema(), 200,
                     model_schema()}});
  api.router().add(
      {http::verb::delete_,
       "/api/v1/gpu-models/{name}/aliases",
       Access::global_admin,
       bind(remove_alias),
       {"Remove an alias (?kind=gpu|instance_type&alias=...)",
        json::array({{{"name", "kind"},
                      {"in", "query"},
                      {"schema", {{"type", "string"}, {"enum", {"gpu", "instance_type"}}}}},
                     {{"name", "alias"},
                      {"in", "query"},
                      {"required", true},
                      {"schema", {{"type", "string"}}}}}),
        nullptr, 200, model_schema()}});
}

}  // namespace ironhold::web

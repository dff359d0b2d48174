// /api/v1/projects: the tenants nodes and cloud accounts belong to. Anyone signed in lists the
// projects they hold a role in (an admin of every project, all of them); only an admin of every
// project adds or removes one.
#include "inventory/error.hpp"
#include "inventory/model/json_fields.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

db::ProjectStore& projects_of(Services& s) {
  if (!s.projects) throw Error(ErrorKind::unavailable, "projects are unavailable on this server");
  return *s.projects;
}

json project_json(const db::ProjectInfo& p) {
  return {{"name", p.name},
          {"description", p.description},
          {"created_by", p.created_by ? json(*p.created_by) : json(nullptr)},
          {"created_at", p.created_at ? json(*p.created_at) : json(nullptr)},
          {"nodes", p.nodes},
          {"cloud_accounts", p.cloud_accounts},
          {"bmc_password_max_age_days",
           p.bmc_password_max_age_days ? json(*p.bmc_password_max_age_days) : json(nullptr)}};
}

std::string no_such_project(const std::string& name) {
  return "no project is named \"" + name.substr(0, 100) + "\"";
}

asio::awaitable<Response> list_projects(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::ProjectStore* store = &projects_of(s);
  auto work = [store, scope = ctx.scope(cap_read)] { return store->list(scope); };
  const auto projects = co_await s.blocking(work);
  json items = json::array();
  for (const auto& p : projects) items.push_back(project_json(p));
  co_return ctx.json(http::status::ok, {{"items", items}, {"next", nullptr}});
}

asio::awaitable<Response> show_project(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::ProjectStore* store = &projects_of(s);
  const std::string name = ctx.path_param("name");
  if (!ctx.can(cap_read, name)) throw not_found(no_such_project(name));
  auto work = [store, name] { return store->get(name); };
  const auto project = co_await s.blocking(work);
  if (!project) throw not_found(no_such_project(name));
  co_return ctx.json(http::status::ok, project_json(*project));
}

asio::awaitable<Response> add_project(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "project";
  db::ProjectStore* store = &projects_of(s);
  const json body = ctx.json_body();
  if (!body.is_object()) throw invalid("the request body must be a JSON object");
  reject_unknown_keys(body, {"name", "description"}, "", ErrorKind::unprocessable);
  const std::string name = required_string(body, "name");
  ctx.target_name = name;
  const std::string description =
      optional_string(body, "description", "description", 1000).value_or("");
  auto work = [store, name, description, by = ctx.actor()] {
    return store->add(name, description, by);
  };
  const db::ProjectInfo project = co_await s.blocking(work);
  ctx.set_target("project", project.name, project.name);
  ctx.target_project = project.name;
  auto res = ctx.json(http::status::created, project_json(project));
  res.set(http::field::location, "/api/v1/projects/" + project.name);
  co_return res;
}

// PATCH /api/v1/projects/{name}: the project's settings; today its BMC password rotation policy.
asio::awaitable<Response> update_project(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::ProjectStore* store = &projects_of(s);
  const std::string name = ctx.path_param("name");
  ctx.set_target("project", name, name);
  const json body = ctx.json_body();
  if (!body.is_object()) throw invalid("the request body must be a JSON object");
  reject_unknown_keys(body, {"bmc_password_max_age_days"}, "", ErrorKind::invalid);
  if (!body.contains("bmc_password_max_age_days"))
    throw invalid("name what to change: \"bmc_password_max_age_days\"");
  const json& value = body["bmc_password_max_age_days"];
  std::optional<int> days;
  if (!value.is_null()) {
    if (!value.is_number_integer())
      throw wrong_type("bmc_password_max_age_days", "a whole number of days, or null", value);
    days = value.get<int>();
  }
  ctx.audit_details = {{"bmc_password_max_age_days", value}};
  auto work = [store, name, days] { return store->set_password_max_age(name, days); };
  const db::ProjectInfo project = co_await s.blocking(work);
  co_return ctx.json(http::status::ok, project_json(project));
}

asio::awaitable<Response> remove_project(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::ProjectStore* store = &projects_of(s);
  const std::string name = ctx.path_param("name");
  ctx.set_target("project", name, name);
  auto work = [store, name] { return store->remove(name); };
  co_await s.blocking(work);
  co_return ctx.empty(http::status::no_content);
}

json project_schema() {
  return {{"type", "object"},
          {"properties",
           {{"name", {{"type", "string"}}},
            {"description", {{"type", "string"}}},
            {"nodes", {{"type", "integer"}}},
            {"cloud_accounts", {{"type", "integer"}}},
            {"bmc_password_max_age_days", {{"type", {"integer", "null"}}}}}}};
}

}  // namespace

void register_project_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  const json none = json::array();
  api.router().add(
      {http::verb::get,
       "/api/v1/projects",
       Access::signed_in,
       bind(list_projects),
       {"The projects the caller holds a role in (all of them for a role in every project)",
        none,
        nullptr,
        200,
        {{"type", "object"},
         {"properties", {{"items", {{"type", "array"}, {"items", project_schema()}}}}}}}});
  api.router().add(
      {http::verb::post,
       "/api/v1/projects",
       Access::global_admin,
       bind(add_project),
       {"Add a project",
        none,
        {{"type", "object"},
         {"required", {"name"}},
         {"properties", {{"name", {{"type", "string"}}}, {"description", {{"type", "string"}}}}}},
        201,
        project_schema()}});
  api.router().add(
      {http::verb::get,
       "/api/v1/projects/{name}",
       Access::signed_in,
       bind(show_project),
       {"Show a project the caller holds a role in", none, nullptr, 200, project_schema()}});
  api.router().add(
      {http::verb::patch,
       "/api/v1/projects/{name}",
       Access::global_admin,
       bind(update_project),
       {"Set a project's BMC password rotation policy: its owned servers' BMC passwords older "
        "than bmc_password_max_age_days are rotated by Ironhold (null: never)",
        none,
        {{"type", "object"},
         {"additionalProperties", false},
         {"properties",
          {{"bmc_password_max_age_days",
            {{"type", {"integer", "null"}}, {"minimum", 1}, {"maximum", 3650}}}}}},
        200,
        project_schema()}});
  api.router().add(
      {http::verb::delete_,
       "/api/v1/projects/{name}",
       Access::global_admin,
       bind(remove_project),
       {"Remove a project that never held anything (409 otherwise)", none, nullptr, 204, nullptr}});
}

}  // namespace ironhold::web

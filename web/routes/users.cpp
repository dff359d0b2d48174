// /api/v1/users: people who sign in with a name and a password, and the roles they hold per
// project. Managed by an admin of every project; anyone signed in as a person changes their own
// password (with the current one). Passwords never appear in an answer or an audit entry.
#include "inventory/error.hpp"
#include "inventory/model/json_fields.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

// {"project": "a" | null, "role": "operator"}: null (or no project) is every project.
Grant grant_of(const json& body, const std::string& where) {
  if (!body.is_object()) throw invalid(where + " must be an object {\"project\", \"role\"}", where);
  reject_unknown_keys(body, {"project", "role"}, where, ErrorKind::unprocessable);
  Grant g;
  const auto role = parse_enum<Role>(required_string(body, "role"));
  if (!role)
    throw unprocessable("\"role\" must be " + join_names(enum_names<Role>()), where + ".role");
  g.role = *role;
  if (body.contains("project") && !body["project"].is_null()) g.project = project_field(body);
  return g;
}

asio::awaitable<Response> list_users(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  auto work = [&s] { return s.users.list(); };
  const auto users = co_await s.blocking(work);
  json items = json::array();
  for (const auto& u : users) items.push_back(db::to_json(u));
  co_return ctx.json(http::status::ok, {{"items", items}, {"next", nullptr}});
}

asio::awaitable<Response> show_user(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const std::string name = ctx.path_param("name");
  auto work = [&s, name] { return s.users.get(name); };
  const auto user = co_await s.blocking(work);
  if (!user) throw not_found("no user is named \"" + name.substr(0, 100) + "\"");
  co_return ctx.json(http::status::ok, db::to_json(*user));
}

asio::awaitable<Response> add_user(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "user";
  const json body = ctx.json_body();
  if (!body.is_object()) throw invalid("the request body must be a JSON object");
  reject_unknown_keys(body, {"name", "password", "roles"}, "", ErrorKind::unprocessable);
  const std::string name = required_string(body, "name");
  ctx.target_name = name;
  const std::string password = required_string(body, "password");
  std::vector<Grant> grants;
  if (body.contains("roles")) {
    if (!body["roles"].is_array()) throw wrong_type("roles", "a list", body["roles"]);
    for (std::size_t i = 0; i < body["roles"].size(); ++i)
      grants.push_back(grant_of(body["roles"][i], "roles[" + std::to_string(i) + "]"));
  }
  json granted = json::array();
  for (const auto& g : grants) granted.push_back(db::to_json(g));
  ctx.audit_details = {{"roles", granted}};
  auto work = [&s, name, password, grants, by = ctx.actor()] {
    db::UserInfo user = s.users.add(name, password, by);
    for (const auto& g : grants) user = s.users.grant(user.id, g, by);
    return user;
  };
  const db::UserInfo user = co_await s.blocking(work);
  ctx.set_target("user", user.id, user.name);
  auto res = ctx.json(http::status::created, db::to_json(user));
  res.set(http::field::location, "/api/v1/users/" + user.name);
  co_return res;
}

asio::awaitable<Response> remove_user(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "user";
  const std::string name = ctx.path_param("name");
  ctx.target_name = name;
  auto work = [&s, name] { return s.users.remove(name); };
  const db::UserInfo user = co_await s.blocking(work);
  ctx.set_target("user", user.id, user.name);
  co_return ctx.empty(http::status::no_content);
}

// A person changes their own password with the current one; an admin of every project sets
// anyone's. Either way the user's console sessions end.
asio::awaitable<Response> set_password(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "user";
  const std::string name = ctx.path_param("name");
  ctx.target_name = name;
  const json body = ctx.json_body();
  if (!body.is_object()) throw invalid("the request body must be a JSON object");
  reject_unknown_keys(body, {"password", "current_password"}, "", ErrorKind::unprocessable);
  const std::string password = required_string(body, "password");
  const bool self = ctx.principal->user_id && (name == ctx.principal->name || name == "me");
  const bool admin = ctx.permissions().can_everywhere(cap_manage);
  if (!self && !admin)
    throw Error(ErrorKind::forbidden,
                "only the user themself or an admin of every project may set this password");
  const std::string target = self ? *ctx.principal->user_id : name;
  std::optional<std::string> current;
  if (self && !admin) {
    current = optional_string(body, "current_password", "current_password", 1024);
    if (!current) throw invalid("\"current_password\" is required", "current_password");
  }
  auto work = [&s, target, password, current, own_name = ctx.principal->name] {
    if (current && !s.users.check_password(own_name, *current))
      throw Error(ErrorKind::forbidden, "the current password is wrong");
    return s.users.set_password(target, password);
  };
  const db::UserInfo user = co_await s.blocking(work);
  ctx.set_target("user", user.id, user.name);
  co_return ctx.empty(http::status::no_content);
}

asio::awaitable<Response> grant_role(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "user";
  const std::string name = ctx.path_param("name");
  ctx.target_name = name;
  const Grant g = grant_of(ctx.json_body(), "body");
  ctx.audit_details = db::to_json(g);
  ctx.target_project = g.project;
  auto work = [&s, name, g, by = ctx.actor()] { return s.users.grant(name, g, by); };
  const db::UserInfo user = co_await s.blocking(work);
  ctx.set_target("user", user.id, user.name);
  co_return ctx.json(http::status::ok, db::to_json(user));
}

asio::awaitable<Response> revoke_role(Services& s, RequestContext& ctx) {
  ctx.only_query({"project"});
  ctx.target_type = "user";
  const std::string name = ctx.path_param("name");
  ctx.target_name = name;
  json asked = {{"role", ctx.path_param("role")}};
  if (auto project = ctx.query_value("project")) asked["project"] = *project;
  const Grant g = grant_of(asked, "role");
  ctx.audit_details = db::to_json(g);
  ctx.target_project = g.project;
  auto work = [&s, name, g] { return s.users.revoke(name, g); };
  const db::UserInfo user = co_await s.blocking(work);
  ctx.set_target("user", user.id, user.name);
  co_return ctx.json(http::status::ok, db::to_json(user));
}

json user_schema() {
  return {{"type", "object"},
          {"properties",
           {{"id", {{"type", "string"}}},
            {"name", {{"type", "string"}}},
            {"roles", {{"type", "array"}}},
            {"last_sign_in_at", {{"type", {"string", "null"}}}}}}};
}

}  // namespace

void register_user_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  const json no_params = json::array();
  api.router().add(
      {http::verb::get,
       "/api/v1/users",
       Access::global_admin,
       bind(list_users),
       {"List users with their roles",
        no_params,
        nullptr,
        200,
        {{"type", "object"},
         {"properties", {{"items", {{"type", "array"}, {"items", user_schema()}}}}}}}});
  api.router().add({http::verb::post,
                    "/api/v1/users",
                    Access::global_admin,
                    bind(add_user),
                    {"Add a user: {\"name\", \"password\", \"roles\": [{\"project\", \"role\"}]}",
                     no_params,
                     {{"type", "object"},
                      {"required", {"name", "password"}},
                      {"properties",
                       {{"name", {{"type", "string"}}},
                        {"password", {{"type", "string"}, {"minLength", 10}}},
                        {"roles", {{"type", "array"}}}}}},
                     201,
                     user_schema()}});
  api.router().add({http::verb::get,
                    "/api/v1/users/{name}",
                    Access::global_admin,
                    bind(show_user),
                    {"Show a user with their roles", no_params, nullptr, 200, user_schema()}});
  api.router().add(
      {http::verb::delete_,
       "/api/v1/users/{name}",
       Access::global_admin,
       bind(remove_user),
       {"Remove a user, with their roles, tokens and sessions", no_params, nullptr, 204, nullptr}});
  api.router().add(
      {http::verb::put,
       "/api/v1/users/{name}/password",
       Access::signed_in,
       bind(set_password),
       {"Set a password: one's own (\"me\", with \"current_password\"), or anyone's as an admin "
        "of every project; the user's console sessions end",
        no_params,
        {{"type", "object"},
         {"required", {"password"}},
         {"properties",
          {{"password", {{"type", "string"}}}, {"current_password", {{"type", "string"}}}}}},
        204,
        nullptr}});
  api.router().add(
      {http::verb::post,
       "/api/v1/users/{name}/roles",
       Access::global_admin,
       bind(grant_role),
       {"Grant a role in a project (or, with project null, in every project)",
        no_params,
        {{"type", "object"},
         {"required", {"role"}},
         {"properties",
          {{"project", {{"type", {"string", "null"}}}}, {"role", {{"type", "string"}}}}}},
        200,
        user_schema()}});
  api.router().add({http::verb::delete_,
                    "/api/v1/users/{name}/roles/{role}",
                    Access::global_admin,
                    bind(revoke_role),
                    {"Revoke a role (?project=NAME; without it, the role held in every project)",
                     json::array({{{"name", "project"},
                                   {"in", "query"},
                                   {"required", false},
                                   {"schema", {{"type", "string"}}}}}),
                     nullptr, 200, user_schema()}});
}

}  // namespace ironhold::web

// /api/v1/tokens: API tokens. A person makes tokens for themself (optionally narrowed to one
// project and one role, with an expiry); a project's admin makes service tokens for that project;
// an admin of every project manages every token. The CLI's `token create|list|revoke` works on the
// database directly, for the first token.
#include <chrono>

#include "inventory/error.hpp"
#include "inventory/model/json_fields.hpp"
#include "inventory/util/time.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

json token_field(const std::optional<std::string>& v) {
  return v ? json(*v) : json(nullptr);
}

// Whether the caller may see and revoke this token: its own, a service token of a project it
// administers, or any token for an admin of every project.
bool manages(const RequestContext& ctx, const db::TokenInfo& t) {
  const Permissions& p = ctx.permissions();
  if (p.can_everywhere(cap_manage)) return true;
  if (t.user_id) return ctx.principal->user_id == t.user_id;
  if (ctx.principal->token_id == t.id) return true;
  return t.project && p.can(cap_manage, *t.project);
}

std::optional<std::string> expiry_of(const json& body) {
  const auto text = optional_string(body, "expires_at", "expires_at", 64);
  if (!text) return std::nullopt;
  const auto at = parse_rfc3339(*text);
  if (!at) throw invalid("\"expires_at\" must be an RFC 3339 time", "expires_at");
  if (*at <= std::chrono::system_clock::now())
    throw unprocessable("\"expires_at\" is in the past", "expires_at");
  return format_rfc3339(*at);
}

std::optional<Role> role_of(const json& body) {
  const auto text = optional_string(body, "role", "role", 32);
  if (!text) return std::nullopt;
  const auto role = parse_enum<Role>(*text);
  if (!role) throw unprocessable("\"role\" must be " + join_names(enum_names<Role>()), "role");
  return role;
}

// What the body asks for, checked against what the caller may hand out.
db::NewToken token_request(const RequestContext& ctx, const json& body) {
  if (!body.is_object()) throw invalid("the request body must be a JSON object");
  reject_unknown_keys(body, {"name", "role", "project", "user", "expires_at"}, "",
                      ErrorKind::unprocessable);
  db::NewToken t;
  t.name = required_string(body, "name");
  t.role = role_of(body);
  if (body.contains("project") && !body["project"].is_null()) t.project = project_field(body);
  t.expires_at = expiry_of(body);
  t.created_by = ctx.actor();
  const Permissions& p = ctx.permissions();
  const auto user = optional_string(body, "user", "user", 63);
  if (!user) {
    // A service token: its project's admin makes it (an admin of every project, one for all).
    if (!t.role) throw unprocessable("a service token needs a \"role\"", "role");
    if (t.project) {
      if (!p.can(cap_manage, *t.project))
        throw Error(ErrorKind::forbidden,
                    "only an admin of project " + *t.project + " may make service tokens for it");
    } else if (!p.can_everywhere(cap_manage)) {
      throw Error(ErrorKind::forbidden,
                  "a service token for every project takes an admin of every project; name a "
                  "\"project\" you administer");
    }
    return t;
  }
  const bool self = *user == "me" || (ctx.principal->user_id && *user == ctx.principal->name);
  if (self) {
    if (!ctx.principal->user_id)
      throw unprocessable("\"user\": \"me\" needs a person signed in; this is a service token",
                          "user");
    t.user = *ctx.principal->user_id;
    return t;
  }
  if (!p.can_everywhere(cap_manage))
    throw Error(ErrorKind::forbidden,
                "only an admin of every project may make tokens for another user");
  t.user = *user;
  return t;
}

}  // namespace

json token_json(const db::TokenInfo& t) {
  return {{"id", t.id},
          {"name", t.name},
          {"role", t.role ? json(to_string(*t.role)) : json(nullptr)},
          {"project", token_field(t.project)},
          {"user", token_field(t.user_name)},
          {"prefix", t.prefix},
          {"created_by", token_field(t.created_by)},
          {"created_at", token_field(t.created_at)},
          {"expires_at", token_field(t.expires_at)},
          {"last_used_at", token_field(t.last_used_at)},
          {"revoked_at", token_field(t.revoked_at)}};
}

void register_token_routes(Api& api) {
  Services& s = api.services();
  api.router().add(
      {http::verb::get,
       "/api/v1/tokens",
       Access::signed_in,
       [&s](RequestContext& ctx) -> asio::awaitable<Response> {
         ctx.only_query({"include_revoked"});
         const bool all = ctx.query_value("include_revoked").value_or("false") == "true";
         auto work = [&s, all] { return s.tokens.list(all); };
         auto tokens = co_await s.blocking(work);
         json items = json::array();
         for (const auto& t : tokens)
           if (manages(ctx, t)) items.push_back(token_json(t));
         co_return ctx.json(http::status::ok, {{"items", items}, {"next", nullptr}});
       },
       {"List the API tokens the caller manages: its own, its projects' service tokens, or all "
        "for an admin of every project (never their secrets)",
        json::array({{{"name", "include_revoked"},
                      {"in", "query"},
                      {"required", false},
                      {"schema", {{"type", "boolean"}}}}}),
        nullptr, 200, openapi::page_of("Token")}});
  api.router().add(
      {http::verb::post,
       "/api/v1/tokens",
       Access::signed_in,
       [&s](RequestContext& ctx) -> asio::awaitable<Response> {
         ctx.only_query({});
         ctx.target_type = "token";
         const json body = ctx.json_body();
         if (body.is_object() && body.contains("name") && body["name"].is_string())
           ctx.target_name = body["name"].get<std::string>();
         const db::NewToken request = token_request(ctx, body);
         ctx.audit_details = {{"role", request.role ? json(to_string(*request.role)) : json()},
                              {"project", token_field(request.project)},
                              {"user", token_field(request.user)},
                              {"expires_at", token_field(request.expires_at)}};
         ctx.target_project = request.project;
         auto work = [&s, request] { return s.tokens.create(request); };
         auto created = co_await s.blocking(work);
         ctx.set_target("token", created.info.id, created.info.name);
         json out = token_json(created.info);
         out["token"] = created.secret;
         co_return ctx.json(http::status::created, out);
       },
       {"Create an API token; its secret is in this answer only. Without \"user\" a service "
        "token (a \"role\", in a \"project\" the caller administers); with \"user\": \"me\" the "
        "caller's own, optionally narrowed to a \"project\" and a \"role\"",
        json::array(),
        {{"type", "object"},
         {"required", {"name"}},
         {"properties",
          {{"name", {{"type", "string"}}},
           {"role", {{"type", "string"}}},
           {"project", {{"type", "string"}}},
           {"user", {{"type", "string"}}},
           {"expires_at", {{"type", "string"}, {"format", "date-time"}}}}}},
        201,
        openapi::ref("Token")}});
  api.router().add({http::verb::delete_,
                    "/api/v1/tokens/{id}",
                    Access::signed_in,
                    [&s](RequestContext& ctx) -> asio::awaitable<Response> {
                      ctx.only_query({});
                      ctx.target_type = "token";
                      const std::string key = ctx.path_param("id");
                      ctx.target_name = key;
                      auto find = [&s, key] { return s.tokens.get(key); };
                      const auto found = co_await s.blocking(find);
                      if (!found || found->revoked_at || !manages(ctx, *found))
                        throw not_found("no active token has the id or name \"" +
                                        key.substr(0, 100) + "\"");
                      ctx.target_project = found->project;
                      auto work = [&s, id = found->id] { return s.tokens.revoke(id); };
                      auto revoked = co_await s.blocking(work);
                      ctx.set_target("token", revoked.id, revoked.name);
                      co_return ctx.empty(http::status::no_content);
                    },
                    {"Revoke an API token (by id or name) the caller manages", json::array(),
                     nullptr, 204, nullptr}});
}

}  // namespace ironhold::web

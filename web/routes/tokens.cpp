// /api/v1/tokens: API tokens for admins (the CLI's `token create|list|revoke` works on the
// database directly, for the first token).
#include "inventory/error.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

json opt(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

json token_json(const db::TokenInfo& t) {
  return {{"id", t.id},           {"name", t.name},         {"role", to_string(t.role)},
          {"prefix", t.prefix},   {"created_by", opt(t.created_by)}, {"created_at", opt(t.created_at)},
          {"expires_at", opt(t.expires_at)}, {"last_used_at", opt(t.last_used_at)},
          {"revoked_at", opt(t.revoked_at)}};
}

void register_token_routes(Api& api) {
  Services& s = api.services();
  api.router().add(
      {http::verb::get, "/api/v1/tokens", Access::admin,
       [&s](RequestContext& ctx) -> asio::awaitable<Response> {
         ctx.only_query({"include_revoked"});
         const bool all = ctx.query_value("include_revoked").value_or("false") == "true";
         auto work = [&s, all] { return s.tokens.list(all); };
         auto tokens = co_await s.blocking(work);
         json items = json::array();
         for (const auto& t : tokens) items.push_back(token_json(t));
         co_return ctx.json(http::status::ok, {{"items", items}, {"next", nullptr}});
       },
       {"List API tokens (never their secrets)",
        json::array({{{"name", "include_revoked"}, {"in", "query"}, {"required", false},
                      {"schema", {{"type", "boolean"}}}}}),
        nullptr, 200, openapi::page_of("Token")}});
  api.router().add(
      {http::verb::post, "/api/v1/tokens", Access::admin,
       [&s](RequestContext& ctx) -> asio::awaitable<Response> {
         ctx.only_query({});
         ctx.target_type = "token";
         const json body = ctx.json_body();
         if (!body.is_object()) throw invalid("the request body must be a JSON object");
         if (!body.contains("name") || !body["name"].is_string())
           throw invalid("\"name\" must be a string", "name");
         if (!body.contains("role") || !body["role"].is_string())
           throw invalid("\"role\" must be a string", "role");
         const auto role = parse_enum<Role>(body["role"].get<std::string>());
         if (!role) throw unprocessable("\"role\" must be " + join_names(enum_names<Role>()), "role");
         const std::string name = body["name"].get<std::string>();
         ctx.target_name = name;
         const std::string by = ctx.actor();
         auto work = [&s, name, role, by] { return s.tokens.create(name, *role, by); };
         auto created = co_await s.blocking(work);
         ctx.target_id = created.info.id;
         json out = token_json(created.info);
         out["token"] = created.secret;
         co_return ctx.json(http::status::created, out);
       },
       {"Create an API token; its secret is in this answer only",
        json::array(),
        {{"type", "object"}, {"required", {"name", "role"}},
         {"properties", {{"name", {{"type", "string"}}}, {"role", {{"type", "string"}}}}}},
        201, openapi::ref("Token")}});
  api.router().add(
      {http::verb::delete_, "/api/v1/tokens/{id}", Access::admin,
       [&s](RequestContext& ctx) -> asio::awaitable<Response> {
         ctx.only_query({});
         ctx.target_type = "token";
         std::string key = ctx.path_param("id");
         ctx.target_name = key;
         auto work = [&s, key] { return s.tokens.revoke(key); };
         auto revoked = co_await s.blocking(work);
         ctx.target_id = revoked.id;
         ctx.target_name = revoked.name;
         co_return ctx.empty(http::status::no_content);
       },
       {"Revoke an API token (by id or name)", json::array(), nullptr, 204, nullptr}});
}

}  // namespace ironhold::web

// GET /api/v1/whoami and GET /api/v1/openapi.json.
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {

void register_meta_routes(Api& api) {
  api.router().add(
      {http::verb::get, "/api/v1/whoami", Access::viewer,
       [](RequestContext& ctx) -> asio::awaitable<Response> {
         const auto& t = *ctx.token;
         co_return ctx.json(http::status::ok, {{"token_id", t.id},
                                               {"name", t.name},
                                               {"role", to_string(t.role)},
                                               {"expires_at", t.expires_at ? nlohmann::json(*t.expires_at) : nullptr}});
       },
       {"The calling token's name and role", nlohmann::json::array(), nullptr, 200,
        {{"type", "object"},
         {"properties", {{"token_id", {{"type", "string"}}}, {"name", {{"type", "string"}}}, {"role", {{"type", "string"}}}}}}}});
  Router& router = api.router();
  api.router().add(
      {http::verb::get, "/api/v1/openapi.json", Access::viewer,
       [&router](RequestContext& ctx) -> asio::awaitable<Response> {
         co_return ctx.json(http::status::ok, openapi::document(router.routes()));
       },
       {"This OpenAPI 3.1 document", nlohmann::json::array(), nullptr, 200, {{"type", "object"}}}});
}

}  // namespace ironhold::web

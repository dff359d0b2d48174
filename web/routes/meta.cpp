// GET /api/v1/whoami and GET /api/v1/openapi.json.
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {

void register_meta_routes(Api& api) {
  api.router().add(
      {http::verb::get,
       "/api/v1/whoami",
       Access::signed_in,
       [](RequestContext& ctx) -> asio::awaitable<Response> {
         ctx.only_query({});
         nlohmann::json out = identity_json(ctx);
         // The fields scripts read before users and projects existed.
         out["token_id"] = ctx.principal->token_id ? nlohmann::json(*ctx.principal->token_id)
                                                   : nlohmann::json(nullptr);
         co_return ctx.json(http::status::ok, out);
       },
       {"Who the caller is: its name, user and token, and what it may do in which project",
        nlohmann::json::array(),
        nullptr,
        200,
        {{"type", "object"},
         {"properties",
          {{"token_id", {{"type", {"string", "null"}}}},
           {"name", {{"type", "string"}}},
           {"role", {{"type", "string"}}},
           {"grants", {{"type", "array"}}}}}}}});
  Router& router = api.router();
  api.router().add(
      {http::verb::get,
       "/api/v1/openapi.json",
       Access::signed_in,
       [&router](RequestContext& ctx) -> asio::awaitable<Response> {
         co_return ctx.json(http::status::ok, openapi::document(router.routes()));
       },
       {"This OpenAPI 3.1 document", nlohmann::json::array(), nullptr, 200, {{"type", "object"}}}});
}

}  // namespace ironhold::web

// GET /healthz: for load balancers and process supervisors; no token, no secrets.
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {

void register_health_routes(Api& api) {
  Services& s = api.services();
  api.router().add(
      {http::verb::get, "/healthz", Access::anyone,
       [&s](RequestContext& ctx) -> asio::awaitable<Response> {
         auto work = [&s] { return s.database.ping(); };
         const bool database = co_await s.blocking(work);
         co_return ctx.json(database ? http::status::ok : http::status::service_unavailable,
                            {{"status", database ? "ok" : "unavailable"},
                             {"database", database ? "ok" : "unreachable"}});
       },
       {"Service health (database reachability)", nlohmann::json::array(), nullptr, 200,
        {{"type", "object"},
         {"properties", {{"status", {{"type", "string"}}}, {"database", {{"type", "string"}}}}}}}});
}

}  // namespace ironhold::web

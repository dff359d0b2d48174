// GET /: the console's entry point. The full operator console (fleet overview, racks, node detail,
// live updates) is built on the public API; until it lands this page points people at the API.
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

constexpr const char* landing_page = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ironhold</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem;color:#1d2430}
code{background:#eef1f5;padding:.1rem .3rem;border-radius:3px}</style></head>
<body><h1>Ironhold</h1>
<p>The service is running. The operator console is not part of this build yet; everything it will
show is available through the API.</p>
<ul><li><code>GET /api/v1/nodes</code> with <code>Authorization: Bearer &lt;token&gt;</code></li>
<li><code>GET /api/v1/openapi.json</code>: every route and the role it needs</li>
<li><code>GET /healthz</code>: service and database health</li></ul>
<p>On the server, <code>ironhold token create --role viewer --name me</code> makes a token.</p>
</body></html>
)";

}  // namespace

void register_console_routes(Api& api) {
  api.router().add({http::verb::get, "/", Access::anyone,
                    [](RequestContext& ctx) -> asio::awaitable<Response> {
                      Response res{http::status::ok, ctx.request.version()};
                      res.set(http::field::content_type, "text/html; charset=utf-8");
                      res.set("Content-Security-Policy", "default-src 'self'; style-src 'unsafe-inline'");
                      res.body() = landing_page;
                      res.prepare_payload();
                      co_return res;
                    },
                    {"The console's entry page", nlohmann::json::array(), nullptr, 200, nullptr}});
}

}  // namespace ironhold::web

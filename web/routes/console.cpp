// The operator console: GET / (its entry page) and GET /assets/<hash>/<path> (its scripts, styles
// and images), compiled into the binary (cmake/EmbedConsole.cmake). The console is plain ES
// modules on the public API: it signs in through /api/v1/session and reads what scripts read.
//
// Caching: an asset's URL carries the hash of the whole console, so it never changes under that
// URL and is cached for a year (immutable); the entry page is revalidated on every load
// (no-cache, with an ETag), so a new build is picked up at the next reload. An asset asked for
// under another hash (a page from an older or newer build) is 404, never today's file.
#include <algorithm>

#include "web/problem.hpp"
#include "web/request_context.hpp"
#include "web/routes/console_assets.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

// No inline scripts or styles, nothing from another origin, not framed: the console's own
// files and its own API only.
constexpr std::string_view kConsolePolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'";

// The serial console page alone also allows inline styles: xterm.js writes its cell sizes and
// colours into <style> elements it creates (it has no nonce option). Styles cannot run script, and
// the page is a document of its own, so the rest of the console keeps the strict policy.
constexpr std::string_view kSerialConsolePolicy =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";

const ConsoleAsset* find_console_asset(std::string_view path) {
  const auto assets = console_assets();
  const auto it = std::find_if(assets.begin(), assets.end(),
                               [path](const ConsoleAsset& a) { return a.path == path; });
  return it == assets.end() ? nullptr : &*it;
}

// Whether an If-None-Match header names this ETag (or is "*").
bool etag_matches(std::string_view if_none_match, std::string_view etag) {
  if (if_none_match.empty()) return false;
  if (if_none_match == "*") return true;
  std::size_t start = 0;
  while (start < if_none_match.size()) {
    auto end = if_none_match.find(',', start);
    if (end == std::string_view::npos) end = if_none_match.size();
    auto candidate = if_none_match.substr(start, end - start);
    while (!candidate.empty() && candidate.front() == ' ') candidate.remove_prefix(1);
    while (!candidate.empty() && candidate.back() == ' ') candidate.remove_suffix(1);
    if (candidate.starts_with("W/")) candidate.remove_prefix(2);
    if (candidate == etag) return true;
    start = end + 1;
  }
  return false;
}

// An asset's answer: 200 with its bytes, or 304 when the browser already holds them.
Response asset_response(const Request& request, const ConsoleAsset& asset,
                        std::string_view cache_control, std::string_view policy = kConsolePolicy) {
  const auto if_none_match = request[http::field::if_none_match];
  const bool unchanged =
      etag_matches(std::string_view(if_none_match.data(), if_none_match.size()), asset.etag);
  Response res{unchanged ? http::status::not_modified : http::status::ok, request.version()};
  res.set(http::field::etag, asset.etag);
  res.set(http::field::cache_control, cache_control);
  res.set(http::field::content_type, asset.content_type);
  res.set("Content-Security-Policy", policy);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "same-origin");
  res.set("X-Frame-Options", "DENY");
  if (!unchanged) res.body().assign(asset.data, asset.data + asset.size);
  res.prepare_payload();
  return res;
}

// A query string is ignored: the console keeps its own state after the '#'.
asio::awaitable<Response> console_entry(RequestContext& ctx) {
  const ConsoleAsset* index = find_console_asset("index.html");
  if (index == nullptr)
    co_return problem(http::status::not_found, "this build has no console",
                      {ctx.path, ctx.request_id, ctx.request.version()});
  co_return asset_response(ctx.request, *index, "no-cache");
}

// The node is named after the '#': /serial-console#<node id or name>.
asio::awaitable<Response> serial_console_page(RequestContext& ctx) {
  const ConsoleAsset* page = find_console_asset("serial.html");
  if (page == nullptr)
    co_return problem(http::status::not_found, "this build has no console",
                      {ctx.path, ctx.request_id, ctx.request.version()});
  co_return asset_response(ctx.request, *page, "no-cache", kSerialConsolePolicy);
}

asio::awaitable<Response> console_file(RequestContext& ctx) {
  const ProblemContext pctx{ctx.path, ctx.request_id, ctx.request.version()};
  if (ctx.path_param("hash") != console_assets_hash())
    co_return problem(http::status::not_found,
                      "this console file belongs to another build of the console: reload the page",
                      pctx);
  const ConsoleAsset* asset = find_console_asset(ctx.path_param("path"));
  if (asset == nullptr)
    co_return problem(http::status::not_found, "the console has no file " + ctx.path_param("path"),
                      pctx);
  co_return asset_response(ctx.request, *asset, "public, max-age=31536000, immutable");
}

}  // namespace

void register_console_routes(Api& api) {
  api.router().add({http::verb::get,
                    "/",
                    Access::anyone,
                    console_entry,
                    {"The operator console (HTML; it signs in through /api/v1/session)",
                     nlohmann::json::array(), nullptr, 200, nullptr}});
  api.router().add({http::verb::get,
                    "/serial-console",
                    Access::anyone,
                    serial_console_page,
                    {"The serial console page (HTML): the node named after '#' in a terminal, "
                     "over GET /api/v1/nodes/{id}/console",
                     nlohmann::json::array(), nullptr, 200, nullptr}});
  api.router().add({http::verb::get,
                    "/assets/{hash}/{path*}",
                    Access::anyone,
                    console_file,
                    {"A file of the operator console, cached for good under the console's content "
                     "hash; another hash is 404",
                     nlohmann::json::array(), nullptr, 200, nullptr}});
}

}  // namespace ironhold::web

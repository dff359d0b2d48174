// A node's serial console: GET /api/v1/nodes/{id}/console upgrades to a WebSocket carrying the
// host's serial port both ways (SerialConsoleSocket); /console/log is what the host printed, kept
// --console-log-days, so that an operator can read what a node said before it died; and
// /console/sessions is who had the console, when and for how long.
#include <boost/beast/core/string.hpp>

#include "inventory/console/serial_console_hub.hpp"
#include "inventory/error.hpp"
#include "web/impl/websocket.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/node_access.hpp"
#include "web/routes/routes.hpp"
#include "web/stream/serial_console_socket.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

struct Consoles {
  db::SerialConsoleStore& store;
  SerialConsoleHub& hub;
};

Consoles consoles(Services& s) {
  if (!s.serial_consoles || !s.console_hub)
    throw Error(ErrorKind::unavailable, "this server has no serial consoles");
  return {*s.serial_consoles, *s.console_hub};
}

// The authority of an Origin header ("https://host:8443" → "host:8443"); empty when it has none.
std::string_view origin_authority(std::string_view origin) {
  const auto scheme_end = origin.find("://");
  if (scheme_end == std::string_view::npos) return {};
  return origin.substr(scheme_end + 3);
}

// A browser sends the console's cookie with a WebSocket opened by any page, and WebSockets are not
// bound by CORS: a page elsewhere could type into a console in the name of a signed-in operator.
// With a cookie, the page must be this service's own (the Origin every browser sends for a
// WebSocket names this host). Bearer tokens are not sent by browsers on their own.
void require_own_origin(const RequestContext& ctx) {
  if (!ctx.session) return;
  const auto origin = ctx.request[http::field::origin];
  const auto forwarded = ctx.request["X-Forwarded-Host"];
  const auto host = forwarded.empty() ? ctx.request[http::field::host] : forwarded;
  const auto authority = origin_authority(std::string_view(origin.data(), origin.size()));
  if (authority.empty() ||
      !boost::beast::iequals(authority, std::string_view(host.data(), host.size())))
    throw Error(ErrorKind::forbidden,
                "the console's session opens a serial console only from the console's own "
                "pages (Origin \"" +
                    std::string(origin) + "\" is not this service); scripts use a Bearer token");
}

asio::awaitable<Response> open_console(Services& s, RequestContext& ctx) {
  ctx.only_query({"mode"});
  const auto mode = ctx.query_value("mode").value_or("write");
  if (mode != "write" && mode != "read")
    throw invalid("mode must be write (type when nobody else does) or read, got \"" + mode + "\"",
                  "mode");
  require_own_origin(ctx);
  auto [store, hub] = consoles(s);
  const Node node = co_await authorized_node(s, ctx, ctx.path_param("id"), cap_act);
  auto lookup = [&store, id = node.id] { return store.target(id); };
  auto target = co_await s.blocking(lookup);
  if (!target) throw not_found(node_not_found_message(node.id));
  // After the checks, so that a page can learn why its WebSocket did not open (browsers do not
  // tell) by asking again without the upgrade: 426 means all was well but the BMC.
  if (!net::is_websocket_upgrade(ctx.request)) {
    Response res = ctx.json(
        http::status::upgrade_required,
        {{"type", "about:blank"},
         {"title", "Upgrade Required"},
         {"status", 426},
         {"detail",
          "the serial console is a WebSocket: send Connection: Upgrade and Upgrade: websocket"}});
    res.set(http::field::content_type, "application/problem+json");
    res.set(http::field::upgrade, "websocket");
    res.set(http::field::connection, "Upgrade");
    co_return res;
  }
  auto socket = std::make_shared<SerialConsoleSocket>(ctx.request.base());
  auto attaching = socket->attach(hub, std::move(*target), ctx.actor(), mode == "write");
  co_await std::move(attaching);
  ctx.upgrade = socket;
  co_return ctx.empty(http::status::switching_protocols);
}

json chunk_json(const db::SerialConsoleChunk& chunk) {
  return {{"seq", chunk.seq}, {"at", chunk.at}, {"data", chunk.data}};
}

asio::awaitable<Response> console_log(Services& s, RequestContext& ctx) {
  ctx.only_query({"after", "since", "limit", "format"});
  auto [store, hub] = consoles(s);
  (void)hub;
  long long after = 0;
  if (const auto text = ctx.query_value("after")) {
    try {
      std::size_t used = 0;
      after = std::stoll(*text, &used);
      if (used != text->size() || after < 0) throw std::invalid_argument("after");
    } catch (const std::exception&) {
      throw invalid(
          "after must be a chunk's seq (a whole number, 0 or more), got \"" + *text + "\"",
          "after");
    }
  }
  const auto since = ctx.query_value("since");
  const int limit = ctx.limit_param(200, 1000);
  const auto format = ctx.query_value("format").value_or("json");
  if (format != "json" && format != "raw")
    throw invalid("format must be json or raw, got \"" + format + "\"", "format");
  const Node node = co_await authorized_node(s, ctx, ctx.path_param("id"), cap_act);
  auto read = [&store, id = node.id, after, since, limit] {
    return store.log(id, after, since, limit);
  };
  const auto chunks = co_await s.blocking(read);
  const long long next_after = chunks.empty() ? after : chunks.back().seq;
  if (format == "raw") {
    std::string bytes;
    for (const auto& chunk : chunks) bytes += chunk.data;
    Response res{http::status::ok, ctx.request.version()};
    res.set(http::field::content_type, "application/octet-stream");
    res.set("X-Next-After", std::to_string(next_after));
    res.set("X-Chunks", std::to_string(chunks.size()));
    res.body() = std::move(bytes);
    res.prepare_payload();
    co_return res;
  }
  json items = json::array();
  for (const auto& chunk : chunks) items.push_back(chunk_json(chunk));
  const bool more = static_cast<int>(chunks.size()) == limit;
  co_return ctx.json_text(http::status::ok,
                          json{{"node_id", node.id},
                               {"node_name", node.name},
                               {"chunks", std::move(items)},
                               {"next_after", next_after},
                               {"more", more}}
                              .dump(-1, ' ', false, json::error_handler_t::replace));
}

json session_json(const db::SerialConsoleSession& session) {
  return {{"id", session.id},
          {"node_id", session.node_id},
          {"principal", session.principal},
          {"writer", session.writer},
          {"protocol", session.protocol},
          {"opened_at", session.opened_at},
          {"closed_at", session.closed_at ? json(*session.closed_at) : json(nullptr)},
          {"duration_seconds",
           session.duration_seconds ? json(*session.duration_seconds) : json(nullptr)},
          {"end_reason", session.end_reason ? json(*session.end_reason) : json(nullptr)},
          {"bytes_in", session.bytes_in},
          {"bytes_out", session.bytes_out}};
}

asio::awaitable<Response> console_sessions(Services& s, RequestContext& ctx) {
  ctx.only_query({"limit"});
  auto [store, hub] = consoles(s);
  (void)hub;
  const int limit = ctx.limit_param(50, 500);
  const Node node = co_await authorized_node(s, ctx, ctx.path_param("id"), cap_act);
  auto read = [&store, id = node.id, limit] { return store.sessions(id, limit); };
  const auto sessions = co_await s.blocking(read);
  json items = json::array();
  for (const auto& session : sessions) items.push_back(session_json(session));
  co_return ctx.json(http::status::ok, {{"items", std::move(items)}});
}

json query_parameter(const char* name, json schema, const char* description) {
  return {{"name", name},
          {"in", "query"},
          {"required", false},
          {"description", description},
          {"schema", std::move(schema)}};
}

}  // namespace

void register_serial_console_routes(Api& api) {
  Services& s = api.services();
  api.router().add(
      {http::verb::get,
       "/api/v1/nodes/{id}/console",
       Access::operator_,
       [&s](RequestContext& ctx) { return open_console(s, ctx); },
       {"The node's serial console as a WebSocket (101 Switching Protocols): binary messages "
        "carry the host's output to the viewer and keys to the host; text messages are JSON "
        "control messages (attached, refused, ended to the viewer; {\"type\":\"break\"} from it). "
        "One viewer at a time types, the others read; every session is audited and the output "
        "kept (console/log). A console session's cookie works only from the console's own pages "
        "(Origin).",
        json::array({query_parameter(
            "mode", {{"type", "string"}, {"enum", {"write", "read"}}, {"default", "write"}},
            "write: take the keyboard if nobody has it (else read); read: only watch")}),
        nullptr, 101, nullptr}});
  api.router().add(
      {http::verb::get,
       "/api/v1/nodes/{id}/console/log",
       Access::operator_,
       [&s](RequestContext& ctx) { return console_log(s, ctx); },
       {"What the node's serial console printed, oldest first, kept --console-log-days: page with "
        "after=next_after; format=raw gives the bytes exactly (application/octet-stream, "
        "X-Next-After header)",
        json::array(
            {query_parameter("after", {{"type", "integer"}, {"minimum", 0}},
                             "only chunks after this seq (the previous page's next_after)"),
             query_parameter("since", {{"type", "string"}, {"format", "date-time"}},
                             "only output received at or after this time"),
             query_parameter("limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}},
                             "chunks per page (default 200)"),
             query_parameter("format", {{"type", "string"}, {"enum", {"json", "raw"}}},
                             "json (default; bytes that are not UTF-8 shown as U+FFFD) or raw")}),
        nullptr, 200, openapi::ref("SerialConsoleLog")}});
  api.router().add(
      {http::verb::get,
       "/api/v1/nodes/{id}/console/sessions",
       Access::operator_,
       [&s](RequestContext& ctx) { return console_sessions(s, ctx); },
       {"Who had the node's serial console, newest first: writer or reader, from "
        "when to when, why it ended and the bytes each way",
        json::array(
            {query_parameter("limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 500}},
                             "sessions to list (default 50)")}),
        nullptr,
        200,
        {{"type", "object"},
         {"properties",
          {{"items", {{"type", "array"}, {"items", openapi::ref("SerialConsoleSession")}}}}}}}});
}

}  // namespace ironhold::web

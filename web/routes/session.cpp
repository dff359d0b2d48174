// /api/v1/session: the console's sign-in. A browser trades an API token for a session cookie
// (HttpOnly, SameSite=Strict, Secure over TLS) and learns the session's CSRF token, which its
// changes must carry; signing out ends the session. Scripts keep using Authorization: Bearer.
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "web/cookies.hpp"
#include "web/openapi.hpp"
#include "web/problem.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

db::SessionStore& sessions_in(Services& s) {
  if (s.sessions == nullptr)
    throw Error(ErrorKind::unavailable, "this server does not keep console sessions");
  return *s.sessions;
}

// What the console learns of the identity it acts as.
json session_json(const RequestContext& ctx) {
  json out = {{"role", to_string(ctx.token->role)},
              {"token", {{"id", ctx.token->id}, {"name", ctx.token->name}}},
              {"via", ctx.session ? "session" : "token"},
              {"csrf_token", nullptr},
              {"created_at", nullptr},
              {"expires_at", ctx.token->expires_at ? json(*ctx.token->expires_at) : json(nullptr)}};
  if (ctx.session) {
    out["csrf_token"] = ctx.session->csrf_token;
    out["created_at"] = ctx.session->created_at;
    out["expires_at"] = ctx.session->expires_at;
  }
  return out;
}

// Sign-in is open to anyone, so it writes its own audit entries, failed ones included.
asio::awaitable<void> audit_sign_in(Services& s, const RequestContext& ctx, int status,
                                    const std::string& reason) {
  db::AuditEntry entry;
  entry.actor = ctx.actor();
  if (ctx.token) entry.actor_id = ctx.token->id;
  entry.action = "session.create";
  if (ctx.session) entry.target_type = "session", entry.target_id = ctx.session->id;
  entry.outcome = std::to_string(status);
  entry.request_id = ctx.request_id;
  entry.details = {{"peer", ctx.peer}};
  if (!reason.empty()) entry.details["reason"] = reason;
  auto write = [&s, entry] {
    try {
      s.audit.record(entry);
    } catch (const std::exception& e) {
      log::error("could not write the audit entry",
                 {{"request_id", *entry.request_id}, {"error", e.what()}});
    }
  };
  co_await s.blocking(write);
}

// 429 with Retry-After: this source failed too often lately.
Response throttled(const RequestContext& ctx, std::chrono::seconds wait) {
  Response res = problem(http::status::too_many_requests,
                         "too many failed sign-ins from this address; try again in " +
                             std::to_string(wait.count()) + " s",
                         ProblemContext{ctx.path, ctx.request_id, ctx.request.version()});
  res.set(http::field::retry_after, std::to_string(wait.count()));
  return res;
}

asio::awaitable<Response> sign_in(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::SessionStore* store = &sessions_in(s);
  // Guessing is slowed down per client address, on every instance alike.
  db::SignInThrottle* throttle = s.sign_in_throttle;
  const std::string source = "peer:" + (ctx.peer.empty() ? std::string("unknown") : ctx.peer);
  if (throttle) {
    auto blocked_for = [throttle, source] { return throttle->blocked_for(source); };
    const auto blocked = co_await s.blocking(blocked_for);
    if (blocked) {
      co_await audit_sign_in(s, ctx, 429, "too many failed sign-ins from this address");
      co_return throttled(ctx, *blocked);
    }
  }
  const json body = ctx.json_body();
  if (!body.is_object() || !body.contains("token") || !body["token"].is_string())
    throw invalid("send {\"token\": \"<an API token>\"}", "token");
  auto check = [&s, secret = body["token"].get<std::string>()] {
    return s.tokens.authenticate(secret);
  };
  ctx.token = co_await s.blocking(check);
  if (throttle) {
    auto count = [throttle, source, ok = ctx.token.has_value()] {
      if (ok) {
        throttle->record_success(source);
        return std::optional<std::chrono::seconds>();
      }
      return throttle->record_failure(source);
    };
    const auto now_blocked = co_await s.blocking(count);
    if (now_blocked)
      log::warn("sign-ins from an address are blocked after repeated failures",
                {{"peer", ctx.peer}, {"seconds", now_blocked->count()}});
  }
  if (!ctx.token) {
    co_await audit_sign_in(s, ctx, 401, "the token is not valid");
    throw Error(ErrorKind::unauthenticated,
                "the API token is not valid (unknown, revoked or expired)");
  }
  auto open = [store, token = *ctx.token, peer = ctx.peer,
               agent = std::string(ctx.request[http::field::user_agent])] {
    return store->create(token, peer, agent);
  };
  const db::CreatedSession created = co_await s.blocking(open);
  ctx.session = created.session;
  co_await audit_sign_in(s, ctx, 201, "");
  Response res = ctx.json(http::status::created, session_json(ctx));
  res.set(http::field::set_cookie,
          session_set_cookie(created.secret, store->limits().lifetime, ctx.secure));
  co_return res;
}

asio::awaitable<Response> sign_out(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  if (!ctx.session)
    throw conflict(
        "this request has no console session to end: it was authenticated with a Bearer token "
        "(revoke the token to end its use)");
  db::SessionStore* store = &sessions_in(s);
  auto end = [store, id = ctx.session->id] { return store->end(id); };
  co_await s.blocking(end);
  ctx.set_target("session", ctx.session->id, ctx.token->name);
  Response res = ctx.empty(http::status::no_content);
  res.set(http::field::set_cookie, session_set_cookie("", std::chrono::seconds(0), ctx.secure));
  co_return res;
}

json session_schema() {
  return {{"type", "object"},
          {"properties",
           {{"role", {{"type", "string"}}},
            {"token",
             {{"type", "object"},
              {"properties", {{"id", {{"type", "string"}}}, {"name", {{"type", "string"}}}}}}},
            {"via", {{"type", "string"}, {"enum", {"session", "token"}}}},
            {"csrf_token", {{"type", {"string", "null"}}}},
            {"created_at", {{"type", {"string", "null"}}}},
            {"expires_at", {{"type", {"string", "null"}}}}}}};
}

}  // namespace

void register_session_routes(Api& api) {
  Services& s = api.services();
  api.router().add(
      {http::verb::post,
       "/api/v1/session",
       Access::anyone,
       [&s](RequestContext& ctx) { return sign_in(s, ctx); },
       {"Sign in to the console: {\"token\": \"<API token>\"} gives a session cookie (HttpOnly, "
        "SameSite=Strict) and the session's csrf_token, which the console's changes send as "
        "X-CSRF-Token",
        json::array(),
        {{"type", "object"},
         {"required", {"token"}},
         {"properties", {{"token", {{"type", "string"}}}}}},
        201,
        session_schema()}});
  api.router().add(
      {http::verb::get,
       "/api/v1/session",
       Access::viewer,
       [](RequestContext& ctx) -> asio::awaitable<Response> {
         ctx.only_query({});
         co_return ctx.json(http::status::ok, session_json(ctx));
       },
       {"Who the request acts as: role, token, and for a console session its csrf_token",
        json::array(), nullptr, 200, session_schema()}});
  api.router().add({http::verb::delete_,
                    "/api/v1/session",
                    Access::viewer,
                    [&s](RequestContext& ctx) { return sign_out(s, ctx); },
                    {"Sign out: end the console session and clear its cookie", json::array(),
                     nullptr, 204, nullptr}});
}

}  // namespace ironhold::web

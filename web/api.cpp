#include "web/api.hpp"

#include <openssl/crypto.h>

#include <boost/url/parse.hpp>
#include <chrono>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/principals.hpp"
#include "inventory/util/log.hpp"
#include "web/auth/oidc_bearer.hpp"
#include "web/cookies.hpp"
#include "web/problem.hpp"
#include "web/request_context.hpp"

namespace ironhold::web {
namespace {

// A client's X-Request-Id is kept when it is short and plain; otherwise we make one.
std::string request_id_for(const Request& req) {
  const auto given = req["X-Request-Id"];
  const bool usable = !given.empty() && given.size() <= 64 &&
                      std::all_of(given.begin(), given.end(), [](unsigned char c) {
                        return std::isalnum(c) || c == '-' || c == '_' || c == '.';
                      });
  if (usable) return std::string(given);
  std::array<std::uint8_t, 8> bytes{};
  crypto::random_bytes(bytes);
  return crypto::to_hex(bytes);
}

bool is_mutating(http::verb v) {
  return v == http::verb::post || v == http::verb::put || v == http::verb::patch ||
         v == http::verb::delete_;
}

std::optional<std::string_view> bearer_token(const Request& req) {
  const auto header = req[http::field::authorization];
  constexpr std::string_view scheme = "Bearer ";
  if (header.size() <= scheme.size()) return std::nullopt;
  std::string_view value(header.data(), header.size());
  if (!std::equal(scheme.begin(), scheme.end(), value.begin(),
                  [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
    return std::nullopt;
  value.remove_prefix(scheme.size());
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  return value;
}

// Compares a secret a client sent in constant time (a timing difference must not reveal how
// much of it was right).
bool same_secret(std::string_view sent, std::string_view expected) {
  return !expected.empty() && sent.size() == expected.size() &&
         CRYPTO_memcmp(sent.data(), expected.data(), expected.size()) == 0;
}

std::string allow_header(std::vector<http::verb> methods) {
  std::sort(methods.begin(), methods.end());
  methods.erase(std::unique(methods.begin(), methods.end()), methods.end());
  std::string out;
  for (auto m : methods) out += (out.empty() ? "" : ", ") + std::string(http::to_string(m));
  return out;
}

}  // namespace

Api::Api(Services& services) : services_(services) {}

Api::~Api() {
  release_adopted();
}

// Coroutine bodies here avoid co_return inside try blocks and temporaries with destructors inside
// co_await expressions: GCC 12 miscompiles some of those (a local destroyed twice).
asio::awaitable<Reply> Api::handle(Request request, std::string peer, BodyReader* body, bool tls) {
  const auto started = std::chrono::steady_clock::now();
  RequestContext ctx{request, {}, {}, {}, request_id_for(request), std::nullopt, {},
                     {},      {}, {}, {}};
  ctx.peer = std::move(peer);
  ctx.secure = tls || request["X-Forwarded-Proto"] == "https";
  ctx.body_reader = body;
  std::optional<Response> immediate;
  const Route* route = route_request(ctx, immediate);
  Reply reply;
  bool failed = false;
  if (route) {
    try {
      reply.response = co_await dispatch(ctx, *route);
    } catch (const Error& e) {
      reply.response = error_response(ctx, e);
      failed = true;
    } catch (const std::exception& e) {
      reply.response = bug_response(ctx, e);
      failed = true;
    }
  } else {
    reply.response = std::move(*immediate);
  }
  if (!failed) {
    reply.body = std::move(ctx.body_source);
    reply.upgrade = std::move(ctx.upgrade);
  }
  if (route && route->access != Access::anyone && is_mutating(request.method()))
    co_await audit(ctx, *route, reply.response);
  finish(ctx, reply.response, started);
  co_return reply;
}

bool Api::streams_body(http::verb method, std::string_view target) const {
  const std::string_view raw_path = target.substr(0, target.find('?'));
  std::vector<std::string> segments;
  if (!split_path(raw_path, segments)) return false;
  const auto match = router_.match(method, segments);
  return match.route && match.route->streams_body;
}

const Route* Api::route_request(RequestContext& ctx, std::optional<Response>& immediate) const {
  const std::string_view target(ctx.request.target().data(), ctx.request.target().size());
  const std::string_view raw_path = target.substr(0, target.find('?'));
  std::vector<std::string> segments;
  const bool split = split_path(raw_path, segments);
  ctx.path = std::string(raw_path);
  // The secret a BMC posts its events under stays out of logs and problem documents, however the
  // path spells it: judged on the segments as the router decodes them ("redfish%2Devents" routes
  // there too), and on the raw text when they do not decode.
  static constexpr std::string_view kSecretPaths = "/api/v1/redfish-events/";
  const bool secret_path =
      split ? segments.size() > 3 && segments[0] == "api" && segments[1] == "v1" &&
                  segments[2] == "redfish-events"
            : ctx.path.starts_with(kSecretPaths) && ctx.path.size() > kSecretPaths.size();
  if (secret_path) ctx.path = std::string(kSecretPaths) + "{secret}";
  const ProblemContext pctx{ctx.path, ctx.request_id, ctx.request.version()};
  auto parsed = boost::urls::parse_origin_form(target);
  if (!parsed || !split) {
    immediate =
        problem(http::status::bad_request, "the request target is not a valid URL path", pctx);
    return nullptr;
  }
  for (auto param : parsed->params())
    if (!param.key.empty()) ctx.query.emplace_back(param.key, param.value);  // "a=1&&b=2" is fine
  auto match = router_.match(ctx.request.method(), segments);
  if (!match.route && match.allowed.empty()) {
    immediate = problem(http::status::not_found, "no such route: " + ctx.path, pctx);
  } else if (!match.route) {
    immediate =
        problem(http::status::method_not_allowed,
                std::string(ctx.request.method_string()) + " is not allowed on " + ctx.path, pctx);
    immediate->set(http::field::allow, allow_header(match.allowed));
  }
  ctx.path_params = std::move(match.params);
  return match.route;
}

asio::awaitable<Response> Api::dispatch(RequestContext& ctx, const Route& route) {
  if (route.access != Access::anyone) {
    std::optional<Response> refusal = co_await authenticate(ctx, route);
    if (refusal) co_return std::move(*refusal);
  }
  co_return co_await route.handler(ctx);
}

asio::awaitable<std::optional<Response>> Api::authenticate(RequestContext& ctx,
                                                           const Route& route) {
  const ProblemContext pctx{ctx.path, ctx.request_id, ctx.request.version()};
  const std::string secret(bearer_token(ctx.request).value_or(""));
  const auto cookie = cookie_value(ctx.request[http::field::cookie], kSessionCookie);
  if (!secret.empty() && auth::looks_like_jwt(secret)) {
    // A JWT from the organisation's identity provider (a script's OIDC access token).
    std::optional<Error> refused;
    auto check = [this, secret, &refused, peer = ctx.peer,
                  request_id = ctx.request_id]() -> std::optional<Principal> {
      try {
        if (services_.oidc == nullptr)
          throw Error(ErrorKind::unauthenticated,
                      "this server does not accept JWTs as Bearer tokens (no OpenID Connect "
                      "provider is configured): use an API token");
        auto found = auth::oidc_bearer_principal(*services_.oidc, services_.users, secret);
        if (found.first_use) audit_first_bearer_use(found, peer, request_id);
        return std::move(found.principal);
      } catch (const Error& e) {
        refused = e;
        return std::nullopt;
      }
    };
    ctx.principal = co_await services_.blocking(check);
    if (refused) {
      const auto status =
          refused->kind() == ErrorKind::unavailable       ? http::status::service_unavailable
          : refused->kind() == ErrorKind::unauthenticated ? http::status::unauthorized
                                                          : http::status::forbidden;
      co_return problem(status, std::string("the Bearer JWT is refused: ") + refused->what(), pctx);
    }
  } else if (!secret.empty()) {
    auto lookup = [this, secret] {
      return db::authenticate_token(services_.tokens, services_.users, secret);
    };
    ctx.principal = co_await services_.blocking(lookup);
    if (!ctx.principal)
      co_return problem(http::status::unauthorized,
                        "the API token is not valid (unknown, revoked or expired)", pctx);
  } else if (cookie && services_.sessions != nullptr) {
    // The console: its cookie names a session, which acts as the token or the user it was
    // opened by.
    auto lookup = [this, store = services_.sessions, value = std::string(*cookie)] {
      auto session = store->authenticate(value);
      std::optional<Principal> principal;
      if (session) principal = db::principal_of_session(*session, services_.users);
      return std::make_pair(std::move(session), std::move(principal));
    };
    auto [session, principal] = co_await services_.blocking(lookup);
    ctx.session = std::move(session);
    ctx.principal = std::move(principal);
    if (!ctx.session)
      co_return problem(http::status::unauthorized,
                        "the console session has ended (signed out, idle too long, expired, or its "
                        "token revoked): sign in again",
                        pctx);
    // A cookie is sent by the browser whatever page asks: a change must also prove that it
    // comes from the console, which alone can read the session's CSRF token.
    if (is_mutating(ctx.request.method()) &&
        !same_secret(ctx.request["X-CSRF-Token"], ctx.session->csrf_token))
      co_return problem(http::status::forbidden,
                        "a change made with the console's session must carry its X-CSRF-Token "
                        "header (GET /api/v1/session gives it); scripts use Authorization: Bearer",
                        pctx);
  } else {
    co_return problem(http::status::unauthorized,
                      "this route needs an API token: send Authorization: Bearer <token> (or sign "
                      "in to the console)",
                      pctx);
  }
  if (!permits(route.access, ctx.principal->permissions))
    co_return problem(http::status::forbidden,
                      ctx.principal->name + " may not call " +
                          std::string(http::to_string(route.method)) + " " + route.pattern +
                          " (it needs the role " + std::string(to_string(route.access)) + ")",
                      pctx);
  co_return std::nullopt;
}

// A user made by their first Bearer JWT: recorded like a first sign-in, since no console
// sign-in did it.
void Api::audit_first_bearer_use(const auth::BearerPrincipal& found, const std::string& peer,
                                 const std::string& request_id) {
  db::AuditEntry entry;
  entry.actor = found.principal.name;
  entry.actor_id = found.principal.user_id;
  entry.action = "session.create";
  entry.target_type = "user";
  entry.target_id = found.principal.user_id;
  entry.target_name = found.principal.name;
  entry.outcome = "201";
  entry.request_id = request_id;
  entry.details = {{"peer", peer},
                   {"via", "oidc-bearer"},
                   {"directory", {{"external_id", found.external_id}, {"first_sign_in", true}}}};
  try {
    services_.audit.record(entry);
  } catch (const std::exception& e) {
    log::error("could not write the audit entry",
               {{"request_id", request_id}, {"error", e.what()}});
  }
}

Response Api::error_response(const RequestContext& ctx, const Error& e) const {
  if (e.kind() == ErrorKind::internal)
    log::error("internal error",
               {{"request_id", ctx.request_id}, {"path", ctx.path}, {"error", e.what()}});
  return problem(e, {ctx.path, ctx.request_id, ctx.request.version()});
}

Response Api::bug_response(const RequestContext& ctx, const std::exception& e) const {
  log::error("unhandled error answering a request",
             {{"request_id", ctx.request_id}, {"path", ctx.path}, {"error", e.what()}});
  return problem(http::status::internal_server_error,
                 "an internal error occurred; report request id " + ctx.request_id,
                 {ctx.path, ctx.request_id, ctx.request.version()});
}

void Api::finish(const RequestContext& ctx, Response& res,
                 std::chrono::steady_clock::time_point started) const {
  res.set("X-Request-Id", ctx.request_id);
  res.set(http::field::server, "ironhold");
  if (!res.count(http::field::cache_control)) res.set(http::field::cache_control, "no-store");
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
  log::info("request", {{"request_id", ctx.request_id},
                        {"method", std::string(ctx.request.method_string())},
                        {"path", ctx.path},
                        {"status", res.result_int()},
                        {"actor", ctx.actor()},
                        {"duration_ms", static_cast<double>(micros) / 1000.0}});
}

asio::awaitable<void> Api::audit(const RequestContext& ctx, const Route& route,
                                 const Response& res) {
  db::AuditEntry entry;
  entry.actor = ctx.actor();
  entry.actor_id = ctx.actor_id();
  entry.action = std::string(http::to_string(route.method)) + " " + route.pattern;
  entry.target_type = ctx.target_type;
  entry.target_id = ctx.target_id;
  entry.target_name = ctx.target_name;
  entry.project = ctx.target_project;
  entry.outcome = std::to_string(res.result_int());
  entry.request_id = ctx.request_id;
  entry.details = ctx.audit_details;
  // A user acting through one of their tokens: which one.
  if (ctx.principal && ctx.principal->user_id && ctx.principal->token_name &&
      entry.details.is_object())
    entry.details["token"] = *ctx.principal->token_name;
  // The response stands; a lost audit row is logged loudly rather than failing the request.
  auto write = [this, entry] {
    try {
      services_.audit.record(entry);
    } catch (const std::exception& e) {
      log::error("could not write the audit entry",
                 {{"request_id", *entry.request_id}, {"error", e.what()}});
    }
  };
  co_await services_.blocking(write);
}

}  // namespace ironhold::web

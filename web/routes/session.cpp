// /api/v1/session: the console's sign-in. A browser trades a user's name and password, or an API
// token, for a session cookie (HttpOnly, SameSite=Strict, Secure over TLS) and learns the session's
// CSRF token, which its changes must carry; signing out ends the session. Scripts keep using
// Authorization: Bearer.
#include "inventory/db/principals.hpp"
#include "inventory/error.hpp"
#include "inventory/model/role_mapping.hpp"
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

// The strongest role a principal holds somewhere, for the console's one-word badge.
std::string headline_role(const Permissions& p) {
  if (p.can_anywhere(cap_manage)) return "admin";
  if (p.can_anywhere(cap_act)) return "operator";
  if (p.can_anywhere(cap_audit)) return "auditor";
  if (p.can_anywhere(cap_read)) return "viewer";
  return "none";
}

}  // namespace

// Who a request acts as, and what it may do where: shared by GET /api/v1/session and whoami.
json identity_json(const RequestContext& ctx) {
  const Principal& p = *ctx.principal;
  const Permissions& perms = p.permissions;
  json grants = json::array();
  if (perms.everywhere() != 0)
    grants.push_back(
        {{"project", nullptr}, {"capabilities", capability_names(perms.everywhere())}});
  for (const auto& [project, caps] : perms.per_project())
    grants.push_back(
        {{"project", project}, {"capabilities", capability_names(caps | perms.everywhere())}});
  json out = {{"name", p.name},
              {"role", headline_role(perms)},
              {"user", p.user_id ? json{{"id", *p.user_id}, {"name", p.name}} : json(nullptr)},
              {"token", p.token_id ? json{{"id", *p.token_id}, {"name", p.token_name.value_or("")}}
                                   : json(nullptr)},
              {"can",
               {{"read", perms.can_anywhere(cap_read)},
                {"act", perms.can_anywhere(cap_act)},
                {"audit", perms.can_anywhere(cap_audit)},
                {"manage", perms.can_anywhere(cap_manage)},
                {"manage_everything", perms.can_everywhere(cap_manage)}}},
              {"grants", grants}};
  return out;
}

namespace {

// What the console learns of the identity it acts as.
json session_json(const RequestContext& ctx) {
  json out = identity_json(ctx);
  out["via"] = ctx.session ? "session" : "token";
  out["csrf_token"] = nullptr;
  out["created_at"] = nullptr;
  out["expires_at"] = nullptr;
  if (ctx.session) {
    out["csrf_token"] = ctx.session->csrf_token;
    out["created_at"] = ctx.session->created_at;
    out["expires_at"] = ctx.session->expires_at;
  }
  return out;
}

}  // namespace

// Sign-in is open to anyone, so it writes its own audit entries, failed ones included.
asio::awaitable<void> audit_sign_in(Services& s, const RequestContext& ctx, int status,
                                    const std::string& reason, const std::string& tried,
                                    const std::string& via, const json& directory) {
  db::AuditEntry entry;
  entry.actor = ctx.principal ? ctx.actor() : (tried.empty() ? "anonymous" : tried);
  entry.actor_id = ctx.actor_id();
  entry.action = "session.create";
  if (ctx.session) entry.target_type = "session", entry.target_id = ctx.session->id;
  entry.outcome = std::to_string(status);
  entry.request_id = ctx.request_id;
  entry.details = {{"peer", ctx.peer}, {"via", via}};
  if (!reason.empty()) entry.details["reason"] = reason;
  if (!directory.is_null()) entry.details["directory"] = directory;
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

namespace {

// 429 with Retry-After: this source failed too often lately.
Response throttled(const RequestContext& ctx, std::chrono::seconds wait, const std::string& who) {
  Response res = problem(
      http::status::too_many_requests,
      "too many failed sign-ins " + who + "; try again in " + std::to_string(wait.count()) + " s",
      ProblemContext{ctx.path, ctx.request_id, ctx.request.version()});
  res.set(http::field::retry_after, std::to_string(wait.count()));
  return res;
}

// What a sign-in body asks: a token, or a user's name and password.
struct SignInRequest {
  std::optional<std::string> token;
  std::string username, password;
};

SignInRequest sign_in_request(const json& body) {
  const char* shape =
      "send {\"username\": \"...\", \"password\": \"...\"} or {\"token\": \"<an API token>\"}";
  if (!body.is_object()) throw invalid(shape);
  SignInRequest r;
  if (body.contains("token")) {
    if (!body["token"].is_string() || body.contains("username") || body.contains("password"))
      throw invalid(shape, "token");
    r.token = body["token"].get<std::string>();
    return r;
  }
  if (!body.contains("username") || !body["username"].is_string()) throw invalid(shape, "username");
  if (!body.contains("password") || !body["password"].is_string()) throw invalid(shape, "password");
  r.username = body["username"].get<std::string>();
  r.password = body["password"].get<std::string>();
  return r;
}

struct SignInOutcome {
  std::optional<db::CreatedSession> created;
  std::optional<Principal> principal;
  std::string via = "password";  // "password", "token" or "ldap"
  // What the directory said, for the audit entry: the entry, its groups, the grants they gave.
  nlohmann::json directory = nullptr;
  // The directory could not be asked, or its person cannot be a user here: the error to answer.
  std::optional<Error> failure;
};

// A directory user's sign-in: the directory checks the password and names the groups, which
// become the user's grants here (none: signed in, but no project).
void sign_in_through_directory(Services& s, db::SessionStore& store, const SignInRequest& asked,
                               const std::string& peer, const std::string& agent,
                               SignInOutcome& out) {
  out.via = "ldap";
  try {
    const auto person = s.directory->authenticate(asked.username, asked.password);
    if (!person) return;
    const std::vector<Grant> grants = grants_for(*s.directory_groups, person->groups, true);
    const db::ExternalSignIn signed_in =
        s.users.sign_in_external({"ldap", person->dn, person->username}, grants);
    json granted = json::array();
    for (const auto& g : grants) granted.push_back(db::to_json(g));
    out.directory = {{"dn", person->dn},
                     {"groups", person->groups},
                     {"grants", std::move(granted)},
                     {"first_sign_in", signed_in.created}};
    if (!signed_in.unknown_projects.empty())
      out.directory["unknown_projects"] = signed_in.unknown_projects;
    out.created = store.create_for_user(signed_in.user.id, peer, agent);
    out.principal = db::principal_of_session(out.created->session, s.users);
  } catch (const Error& e) {
    out.failure = e;
  }
}

asio::awaitable<Response> sign_in(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::SessionStore* store = &sessions_in(s);
  const SignInRequest asked = sign_in_request(ctx.json_body());
  // Guessing is slowed down per client address and per user name, on every instance alike.
  db::SignInThrottle* throttle = s.sign_in_throttle;
  std::vector<std::string> sources = {"peer:" +
                                      (ctx.peer.empty() ? std::string("unknown") : ctx.peer)};
  if (!asked.token) sources.push_back("user:" + asked.username.substr(0, 63));
  if (throttle) {
    auto blocked_for = [throttle, sources] {
      std::optional<std::pair<std::string, std::chrono::seconds>> worst;
      for (const auto& source : sources)
        if (auto wait = throttle->blocked_for(source); wait && (!worst || *wait > worst->second))
          worst = std::make_pair(source, *wait);
      return worst;
    };
    const auto blocked = co_await s.blocking(blocked_for);
    if (blocked) {
      const bool by_user = blocked->first.rfind("user:", 0) == 0;
      const std::string who = by_user ? "for this user" : "from this address";
      co_await audit_sign_in(s, ctx, 429, "too many failed sign-ins " + who, asked.username,
                             asked.token ? "token" : "password", nullptr);
      co_return throttled(ctx, blocked->second, who);
    }
  }
  auto check = [&s, store, asked, peer = ctx.peer,
                agent = std::string(ctx.request[http::field::user_agent])] {
    SignInOutcome out;
    if (!asked.token && s.directory && !s.users.is_local(asked.username)) {
      sign_in_through_directory(s, *store, asked, peer, agent, out);
      return out;
    }
    if (asked.token) {
      out.via = "token";
      const auto token = s.tokens.authenticate(*asked.token);
      if (!token) return out;
      out.created = store->create(*token, peer, agent);
      out.principal = db::principal_of_session(out.created->session, s.users);
      return out;
    }
    const auto user = s.users.check_password(asked.username, asked.password);
    if (!user) return out;
    out.created = store->create_for_user(user->id, peer, agent);
    out.principal = db::principal_of_session(out.created->session, s.users);
    return out;
  };
  SignInOutcome outcome = co_await s.blocking(check);
  if (outcome.failure) {
    // Not the person's mistake (the directory is down, or their name is taken here): said as it
    // is, audited, and not counted against them.
    const int status = outcome.failure->kind() == ErrorKind::unavailable ? 503
                       : outcome.failure->kind() == ErrorKind::conflict  ? 409
                                                                         : 403;
    co_await audit_sign_in(s, ctx, status, outcome.failure->what(), asked.username, outcome.via,
                           nullptr);
    throw *outcome.failure;
  }
  if (throttle) {
    auto count = [throttle, sources, ok = outcome.created.has_value()] {
      std::optional<std::chrono::seconds> blocked;
      for (const auto& source : sources) {
        if (ok) {
          throttle->record_success(source);
          continue;
        }
        if (auto now = throttle->record_failure(source); now && (!blocked || *now > *blocked))
          blocked = now;
      }
      return blocked;
    };
    const auto now_blocked = co_await s.blocking(count);
    if (now_blocked)
      log::warn("sign-ins are blocked after repeated failures",
                {{"peer", ctx.peer}, {"seconds", now_blocked->count()}});
  }
  if (!outcome.created) {
    const std::string why = asked.token ? "the token is not valid" : "wrong user name or password";
    co_await audit_sign_in(s, ctx, 401, why, asked.username, outcome.via, nullptr);
    throw Error(ErrorKind::unauthenticated,
                asked.token ? "the API token is not valid (unknown, revoked or expired)"
                            : "the user name or the password is wrong");
  }
  ctx.session = outcome.created->session;
  ctx.principal = std::move(outcome.principal);
  co_await audit_sign_in(s, ctx, 201, "", asked.username, outcome.via, outcome.directory);
  Response res = ctx.json(http::status::created, session_json(ctx));
  res.set(http::field::set_cookie,
          session_set_cookie(outcome.created->secret, store->limits().lifetime, ctx.secure));
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
  ctx.set_target("session", ctx.session->id, ctx.actor());
  Response res = ctx.empty(http::status::no_content);
  res.set(http::field::set_cookie, session_set_cookie("", std::chrono::seconds(0), ctx.secure));
  co_return res;
}

json session_schema() {
  const json named = {
      {"type", {"object", "null"}},
      {"properties", {{"id", {{"type", "string"}}}, {"name", {{"type", "string"}}}}}};
  return {{"type", "object"},
          {"properties",
           {{"name", {{"type", "string"}}},
            {"role", {{"type", "string"}}},
            {"user", named},
            {"token", named},
            {"can", {{"type", "object"}}},
            {"grants", {{"type", "array"}}},
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
       {"Sign in to the console: {\"username\", \"password\"} or {\"token\": \"<API token>\"} "
        "gives a session cookie (HttpOnly, SameSite=Strict) and the session's csrf_token, which "
        "the console's changes send as X-CSRF-Token",
        json::array(),
        {{"type", "object"},
         {"properties",
          {{"token", {{"type", "string"}}},
           {"username", {{"type", "string"}}},
           {"password", {{"type", "string"}}}}}},
        201,
        session_schema()}});
  api.router().add(
      {http::verb::get,
       "/api/v1/session",
       Access::signed_in,
       [](RequestContext& ctx) -> asio::awaitable<Response> {
         ctx.only_query({});
         co_return ctx.json(http::status::ok, session_json(ctx));
       },
       {"Who the request acts as: role, token, and for a console session its csrf_token",
        json::array(), nullptr, 200, session_schema()}});
  api.router().add({http::verb::delete_,
                    "/api/v1/session",
                    Access::signed_in,
                    [&s](RequestContext& ctx) { return sign_out(s, ctx); },
                    {"Sign out: end the console session and clear its cookie", json::array(),
                     nullptr, 204, nullptr}});
}

}  // namespace ironhold::web

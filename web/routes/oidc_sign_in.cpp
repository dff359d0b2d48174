// Console sign-in through the organisation's OpenID Connect provider: the authorization-code
// flow with PKCE (RFC 7636) and a nonce.
//   GET /api/v1/session/oidc            sends the browser to the provider
//   GET /api/v1/session/oidc/callback   where the provider sends it back with a code
//   GET /api/v1/session/providers       which sign-ins this service offers (the sign-in page)
// The state sent to the provider is random; the database keeps its hash, and the PKCE verifier
// and nonce are derived from it under a key of this service. A cookie ties the state to the
// browser that began, so a code obtained in another browser cannot be slipped into this one.
#include <algorithm>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include "inventory/crypto/jose/untrusted.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/db/principals.hpp"
#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"
#include "inventory/util/log.hpp"
#include "web/auth/oidc_service.hpp"
#include "web/cookies.hpp"
#include "web/openapi.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace oidc_routes {

using nlohmann::json;
using util::concat;

constexpr std::chrono::seconds kStateLifetime{db::OidcSignInStore::kLifetimeMinutes * 60};

auth::OidcService& oidc_in(Services& s) {
  // Not a fault of the service: there is simply no such sign-in here.
  if (s.oidc == nullptr)
    throw not_found(
        "sign-in through OpenID Connect is not configured on this server (the \"oidc\" object "
        "of --identity-config)");
  return *s.oidc;
}

// The console page to come back to: a path of this service ("/", "/#/nodes/x"), never another
// site ("//evil.example", "/\\evil.example" that browsers read as one).
std::string return_path(const std::optional<std::string>& asked) {
  if (!asked || asked->empty()) return "/";
  const std::string& p = *asked;
  const bool local =
      p.size() <= 500 && p[0] == '/' && (p.size() == 1 || (p[1] != '/' && p[1] != '\\'));
  const bool printable =
      std::all_of(p.begin(), p.end(), [](unsigned char c) { return c > 0x20 && c < 0x7f; });
  if (!local || !printable)
    throw invalid("\"return_to\" must be a path of this service, such as /#/nodes", "return_to");
  return p;
}

// The console's sign-in page saying why a sign-in did not finish.
Response back_to_sign_in(const RequestContext& ctx, const std::string& why) {
  Response res{http::status::see_other, ctx.request.version()};
  res.set(http::field::location,
          concat("/?sign_in_error=", boost::urls::encode(why, boost::urls::unreserved_chars),
                 "#/signin"));
  res.insert(http::field::set_cookie,
             oidc_state_set_cookie("", std::chrono::seconds(0), ctx.secure));
  res.prepare_payload();
  return res;
}

asio::awaitable<Response> begin(Services& s, RequestContext& ctx) {
  ctx.only_query({"return_to"});
  auth::OidcService& oidc = oidc_in(s);
  const std::string return_to = return_path(ctx.query_value("return_to"));
  std::array<std::uint8_t, 32> random{};
  crypto::random_bytes(random);
  const std::string state = crypto::base64url(random);
  // The browser came here by following a link: a provider that cannot be reached is said on the
  // sign-in page, not in a JSON document.
  auto start = [&oidc, state, return_to]() -> std::pair<std::string, std::optional<Error>> {
    try {
      oidc.sign_ins.begin(crypto::sha256_hex(state), return_to);
      return {oidc.provider.authorization_url(state, oidc.nonce(state), oidc.code_verifier(state)),
              std::nullopt};
    } catch (const Error& e) {
      return {"", e};
    }
  };
  auto started = co_await s.blocking(start);
  if (started.second) {
    const std::string why = started.second->what();
    log::warn("an OpenID Connect sign-in could not begin", {{"error", why}});
    co_await audit_sign_in(s, ctx, 503, why, "", "oidc", nullptr);
    co_return back_to_sign_in(ctx, why);
  }
  const std::string& url = started.first;
  Response res{http::status::found, ctx.request.version()};
  res.set(http::field::location, url);
  res.set(http::field::set_cookie, oidc_state_set_cookie(state, kStateLifetime, ctx.secure));
  res.prepare_payload();
  co_return res;
}

struct CallbackOutcome {
  std::optional<db::CreatedSession> created;
  std::optional<Principal> principal;
  std::string return_to = "/";
  std::string tried;        // the user name, once known
  json provider = nullptr;  // what the provider said, for the audit entry
  std::optional<Error> failure;
};

// Checks the callback's state, redeems its code and signs the person in. Runs on the blocking
// pool (the provider and the database).
CallbackOutcome finish(Services& s, auth::OidcService& oidc, const std::string& state,
                       const std::string& code, const std::string& peer, const std::string& agent) {
  CallbackOutcome out;
  try {
    const auto return_to = oidc.sign_ins.finish(crypto::sha256_hex(state));
    if (!return_to)
      throw Error(ErrorKind::unauthenticated,
                  "this sign-in has expired or was already used (it lasts 10 minutes): sign in "
                  "again");
    out.return_to = *return_to;
    const auto claims = oidc.provider.redeem(code, oidc.code_verifier(state), oidc.nonce(state));
    const auth::OidcPerson person = auth::person_of(oidc.provider.config(), claims);
    out.tried = person.identity.name;
    const std::vector<Grant> grants = grants_for(oidc.roles, person.role_values, false);
    const db::ExternalSignIn signed_in = s.users.sign_in_external(person.identity, grants);
    json granted = json::array();
    for (const auto& g : grants) granted.push_back(db::to_json(g));
    out.provider = {{"issuer", oidc.provider.config().issuer},
                    {"subject", claims.subject},
                    {"roles", person.role_values},
                    {"grants", std::move(granted)},
                    {"first_sign_in", signed_in.created}};
    if (!signed_in.unknown_projects.empty())
      out.provider["unknown_projects"] = signed_in.unknown_projects;
    out.created = s.sessions->create_for_user(signed_in.user.id, peer, agent);
    out.principal = db::principal_of_session(out.created->session, s.users);
  } catch (const Error& e) {
    out.failure = e;
  }
  return out;
}

int status_of(const Error& e) {
  switch (e.kind()) {
    case ErrorKind::unavailable:
      return 503;
    case ErrorKind::conflict:
      return 409;
    case ErrorKind::unauthenticated:
      return 401;
    default:
      return 403;
  }
}

asio::awaitable<Response> callback(Services& s, RequestContext& ctx) {
  // No only_query here: providers add parameters of their own (session_state, ...).
  auth::OidcService& oidc = oidc_in(s);
  if (s.sessions == nullptr)
    throw Error(ErrorKind::unavailable, "this server does not keep console sessions");
  const std::string state = ctx.query_value("state").value_or("");
  const auto cookie = cookie_value(ctx.request[http::field::cookie], kOidcStateCookie);
  std::string refused;
  if (state.empty()) {
    refused = "the identity provider sent the browser back without the sign-in's state";
  } else if (!cookie || *cookie != state) {
    refused =
        "this sign-in was not begun in this browser (or its cookie was refused): sign in again";
  } else if (const auto iss = ctx.query_value("iss");
             iss && *iss != oidc.provider.config().issuer) {
    // RFC 9207: the answer of another provider, sent here to mix the two up.
    refused = "the browser came back from another identity provider than the configured issuer";
  } else if (const auto error = ctx.query_value("error")) {
    refused = concat("the identity provider did not sign you in (",
                     crypto::jose::detail::quote_value(*error), ")");
    if (const auto description = ctx.query_value("error_description"))
      refused += concat(": ", crypto::jose::detail::quote_value(*description));
  } else if (!ctx.query_value("code")) {
    refused = "the identity provider sent the browser back without a code";
  }
  if (!refused.empty()) {
    // The state is spent either way, so that it cannot be tried again.
    if (!state.empty()) {
      auto forget = [&oidc, hash = crypto::sha256_hex(state)] { oidc.sign_ins.finish(hash); };
      co_await s.blocking(forget);
    }
    co_await audit_sign_in(s, ctx, 401, refused, "", "oidc", nullptr);
    co_return back_to_sign_in(ctx, refused);
  }
  auto run = [&s, &oidc, state, code = *ctx.query_value("code"), peer = ctx.peer,
              agent = std::string(ctx.request[http::field::user_agent])] {
    return finish(s, oidc, state, code, peer, agent);
  };
  CallbackOutcome outcome = co_await s.blocking(run);
  if (outcome.failure) {
    if (outcome.failure->kind() == ErrorKind::unavailable)
      log::warn("an OpenID Connect sign-in could not finish", {{"error", outcome.failure->what()}});
    co_await audit_sign_in(s, ctx, status_of(*outcome.failure), outcome.failure->what(),
                           outcome.tried, "oidc", outcome.provider);
    co_return back_to_sign_in(ctx, outcome.failure->what());
  }
  ctx.session = outcome.created->session;
  ctx.principal = std::move(outcome.principal);
  co_await audit_sign_in(s, ctx, 201, "", outcome.tried, "oidc", outcome.provider);
  Response res{http::status::see_other, ctx.request.version()};
  res.set(http::field::location, outcome.return_to);
  res.insert(
      http::field::set_cookie,
      session_set_cookie(outcome.created->secret, s.sessions->limits().lifetime, ctx.secure));
  res.insert(http::field::set_cookie,
             oidc_state_set_cookie("", std::chrono::seconds(0), ctx.secure));
  res.prepare_payload();
  co_return res;
}

json providers_json(Services& s) {
  json oidc = nullptr;
  if (s.oidc)
    oidc = {{"label", s.oidc->provider.config().label},
            {"issuer", s.oidc->provider.config().issuer},
            {"start", "/api/v1/session/oidc"}};
  return {{"password", true}, {"ldap", s.directory != nullptr}, {"oidc", oidc}};
}

}  // namespace oidc_routes

void register_oidc_sign_in_routes(Api& api) {
  using namespace oidc_routes;
  Services& s = api.services();
  api.router().add(
      {http::verb::get,
       "/api/v1/session/providers",
       Access::anyone,
       [&s](RequestContext& ctx) -> asio::awaitable<Response> {
         ctx.only_query({});
         co_return ctx.json(http::status::ok, providers_json(s));
       },
       {"How people sign in here: passwords (local, or checked by the LDAP directory when ldap is "
        "true) and, when oidc is set, the identity provider's button and where it starts",
        json::array(),
        nullptr,
        200,
        {{"type", "object"},
         {"properties",
          {{"password", {{"type", "boolean"}}},
           {"ldap", {{"type", "boolean"}}},
           {"oidc", {{"type", {"object", "null"}}}}}}}}});
  api.router().add(
      {http::verb::get,
       "/api/v1/session/oidc",
       Access::anyone,
       [&s](RequestContext& ctx) { return begin(s, ctx); },
       {"Begin a console sign-in through the OpenID Connect provider: 302 to its authorization "
        "endpoint (authorization code, PKCE S256, nonce)",
        json::array({openapi::query("return_to", {{"type", "string"}},
                                    "the console path to come back to, such as /#/nodes")}),
        nullptr, 302, nullptr}});
  api.router().add(
      {http::verb::get,
       "/api/v1/session/oidc/callback",
       Access::anyone,
       [&s](RequestContext& ctx) { return callback(s, ctx); },
       {"Where the OpenID Connect provider sends the browser back: the code is redeemed, the ID "
        "token checked, and a console session begun (303 to the page the sign-in began on; on "
        "failure, 303 to the sign-in page saying why)",
        json::array({openapi::query("code", {{"type", "string"}}, "the authorization code"),
                     openapi::query("state", {{"type", "string"}}, "the sign-in's state"),
                     openapi::query("iss", {{"type", "string"}}, "the issuer (RFC 9207)"),
                     openapi::query("error", {{"type", "string"}}, "the provider's refusal")}),
        nullptr, 303, nullptr}});
}

}  // namespace ironhold::web

#include "sim/oidc/oidc_issuer.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <mutex>
#include <set>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"
#include "sim/oidc/login_page.hpp"
#include "sim/oidc/oauth_wire.hpp"
#include "sim/oidc/token_signer.hpp"

namespace ironhold::sim::oidc {

namespace {

using cloud::ApiReply;
using cloud::ApiRequest;
using nlohmann::json;
using Clock = std::chrono::system_clock;

// Long enough for a browser round trip, short enough that a leaked code is soon worthless.
constexpr std::chrono::seconds kCodeLifetime{60};
constexpr std::string_view kDefaultScope = "openid profile email groups";
// The parameters of an authorization request the form carries back to POST /authorize.
constexpr std::array<std::string_view, 8> kAuthorizeParams{
    "response_type", "client_id", "redirect_uri",   "scope",
    "state",         "nonce",     "code_challenge", "code_challenge_method"};

std::int64_t seconds_of(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

std::string capitalised(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  return text;
}

OidcUser user(std::string name, std::vector<std::string> groups) {
  return OidcUser{name, name + "-oidc", std::move(groups)};
}

// A validated authorization request, or the reply that refuses it.
struct Authorization {
  std::optional<ApiReply> refusal;
  std::vector<std::pair<std::string, std::string>> params;  // as given, for the form
  std::string client_id;
  std::string redirect_uri;
  std::string scope;
  std::optional<std::string> state;
  std::optional<std::string> nonce;
  std::string code_challenge;
};

struct IssuedCode {
  std::string client_id;
  std::string redirect_uri;
  std::optional<std::string> nonce;
  std::string code_challenge;
  std::string username;
  std::string scope;
  Clock::time_point auth_time;
  Clock::time_point expires;
};

}  // namespace

std::vector<OidcUser> default_oidc_users() {
  return {user("alice", {"gpu-ops", "auditors"}), user("bob", {"fleet-admins"}), user("carol", {})};
}

struct OidcIssuer::State {
  explicit State(OidcIssuerOptions opts) : options(std::move(opts)) {
    if (options.client_id.empty()) throw invalid("the client id must not be empty", "client_id");
    if (options.token_lifetime <= std::chrono::seconds::zero())
      throw invalid("the token lifetime must be positive", "token_lifetime");
    if (options.groups_claim.empty())
      throw invalid("the groups claim needs a name", "groups_claim");
    for (const auto& uri : options.redirect_uris)
      if (!(uri.starts_with("http://") || uri.starts_with("https://")) ||
          uri.find('#') != std::string::npos)
        throw invalid(
            "redirect URI \"" + uri + "\" is not an absolute http(s) URI without a fragment",
            "redirect_uris");
    if (options.users.empty()) options.users = default_oidc_users();
    std::set<std::string> names;
    for (auto& u : options.users) {
      if (u.username.empty()) throw invalid("a user has an empty name", "users");
      if (!names.insert(u.username).second)
        throw invalid("user \"" + u.username + "\" is listed twice", "users");
      if (u.subject.empty()) u.subject = "sub-" + u.username;
      if (u.name.empty()) u.name = capitalised(u.username);
      if (u.email.empty()) u.email = u.username + "@example.test";
    }
    signer = std::make_shared<const TokenSigner>(
        options.key_file.empty() ? TokenSigner::generate(options.alg)
                                 : TokenSigner::load_pem(options.key_file, options.alg));
  }

  OidcIssuerOptions options;  // not changed after construction
  mutable std::mutex mutex;   // guards what follows
  std::string issuer;
  std::shared_ptr<const TokenSigner> signer;
  std::shared_ptr<const TokenSigner> previous;
  std::map<std::string, IssuedCode> codes;

  Clock::time_point now() const { return options.clock ? options.clock() : Clock::now(); }

  std::string issuer_url() const {
    std::lock_guard lock(mutex);
    return issuer;
  }

  std::shared_ptr<const TokenSigner> current_signer() const {
    std::lock_guard lock(mutex);
    return signer;
  }

  json key_set() const {
    std::lock_guard lock(mutex);
    json keys = json::array({signer->public_jwk()});
    if (previous) keys.push_back(previous->public_jwk());
    return {{"keys", keys}};
  }

  const OidcUser* find_user(std::string_view username) const {
    for (const auto& u : options.users)
      if (u.username == username) return &u;
    return nullptr;
  }

  const OidcUser* authenticate(const std::optional<std::string>& username,
                               const std::optional<std::string>& password) const {
    if (!username || !password) return nullptr;
    const OidcUser* u = find_user(*username);
    return u && same_secret(u->password, *password) ? u : nullptr;
  }

  bool redirect_allowed(const std::string& uri) const {
    if (options.redirect_uris.empty()) return loopback_redirect(uri);
    return std::find(options.redirect_uris.begin(), options.redirect_uris.end(), uri) !=
           options.redirect_uris.end();
  }

  // `uri` with the parameters appended to its query, each percent-encoded.
  static std::string with_query(const std::string& uri,
                                const std::vector<std::pair<std::string, std::string>>& params) {
    std::string out = uri;
    char separator = uri.find('?') == std::string::npos ? '?' : '&';
    for (const auto& [name, value] : params) {
      out += separator + name + "=" + percent_encode(value);
      separator = '&';
    }
    return out;
  }

  // An error sent back to the client (RFC 6749 section 4.1.2.1), with the issuer (RFC 9207).
  ApiReply error_redirect(const Authorization& a, std::string error,
                          std::string description) const {
    std::vector<std::pair<std::string, std::string>> params{
        {"error", std::move(error)}, {"error_description", std::move(description)}};
    if (a.state) params.emplace_back("state", *a.state);
    params.emplace_back("iss", issuer_url());
    return redirect_to(with_query(a.redirect_uri, params));
  }

  Authorization check_authorization(const Form& form) const {
    Authorization a;
    for (const auto name : kAuthorizeParams)
      if (const auto value = form.get(std::string(name))) a.params.emplace_back(name, *value);
    const auto refuse_page = [&](std::string message) {
      a.refusal = html_reply(400, render_error_page("Sign-in request refused", message));
      return a;
    };
    // Until the client and its redirect URI check out, errors must not be sent there.
    for (const char* name : {"client_id", "redirect_uri"})
      if (form.repeated.contains(name))
        return refuse_page(std::string("The request repeats ") + name + ".");
    const auto client_id = form.get("client_id");
    if (!client_id) return refuse_page("The request has no client_id.");
    if (*client_id != options.client_id)
      return refuse_page("Unknown client_id \"" + *client_id + "\".");
    const auto redirect_uri = form.get("redirect_uri");
    if (!redirect_uri) return refuse_page("The request has no redirect_uri.");
    if (!redirect_allowed(*redirect_uri))
      return refuse_page("The redirect_uri \"" + *redirect_uri +
                         "\" is not registered for client \"" + *client_id + "\".");
    a.client_id = *client_id;
    a.redirect_uri = *redirect_uri;
    a.state = form.get("state");
    a.nonce = form.get("nonce");
    a.scope = form.get("scope").value_or("");
    a.code_challenge = form.get("code_challenge").value_or("");
    const auto fail = [&](std::string error, std::string description) {
      a.refusal = error_redirect(a, std::move(error), std::move(description));
      return a;
    };
    if (!form.repeated.empty())
      return fail("invalid_request", "the request repeats " + *form.repeated.begin());
    const auto response_type = form.get("response_type");
    if (!response_type) return fail("invalid_request", "response_type is required");
    if (*response_type != "code")
      return fail("unsupported_response_type", "only response_type=code is supported");
    if (!has_scope(a.scope, "openid"))
      return fail("invalid_request", "the scope must include openid");
    if (a.code_challenge.empty())
      return fail("invalid_request", "PKCE is required: code_challenge is missing");
    if (form.get("code_challenge_method") != "S256")
      return fail("invalid_request", "PKCE is required with code_challenge_method=S256");
    if (!pkce_string(a.code_challenge))
      return fail("invalid_request", "code_challenge is not 43 to 128 unreserved characters");
    return a;
  }

  ApiReply authorize(const ApiRequest& request) {
    if (request.method == "GET") {
      auto a = check_authorization(Form(request.query()));
      if (a.refusal) return *a.refusal;
      return html_reply(200, render_login_page({a.client_id, a.params, {}, {}}));
    }
    if (request.method != "POST") return method_not_allowed("GET, POST");
    if (!form_encoded(request))
      return html_reply(415,
                        render_error_page("Sign-in request refused",
                                          "The form must be application/x-www-form-urlencoded."));
    const Form form(request.body);
    auto a = check_authorization(form);
    if (a.refusal) return *a.refusal;
    if (form.get("deny")) return error_redirect(a, "access_denied", "the user denied the request");
    const auto username = form.get("username");
    const OidcUser* u = authenticate(username, form.get("password"));
    if (!u)
      return html_reply(401, render_login_page({a.client_id, a.params, username.value_or(""),
                                                "wrong user name or password"}));
    std::array<std::uint8_t, 32> random{};
    crypto::random_bytes(random);
    const std::string code = crypto::base64url(random);
    const auto now = this->now();
    {
      std::lock_guard lock(mutex);
      std::erase_if(codes, [&](const auto& entry) { return entry.second.expires < now; });
      codes[code] = IssuedCode{a.client_id, a.redirect_uri, a.nonce, a.code_challenge,
                               u->username, a.scope,        now,     now + kCodeLifetime};
    }
    std::vector<std::pair<std::string, std::string>> params{{"code", code}};
    if (a.state) params.emplace_back("state", *a.state);
    params.emplace_back("iss", issuer_url());
    return redirect_to(with_query(a.redirect_uri, params));
  }

  // The client that calls /token, or the reply that refuses it (RFC 6749 section 2.3).
  std::optional<ApiReply> authenticate_client(const ApiRequest& request, const Form& form) const {
    std::optional<ClientCredentials> basic;
    if (const auto header = request.header("Authorization")) {
      basic = basic_credentials(*header);
      if (!basic) return oauth_error(401, "invalid_client", "malformed Basic client credentials");
    }
    const auto body_id = form.get("client_id");
    const auto body_secret = form.get("client_secret");
    if (basic && body_secret)
      return oauth_error(400, "invalid_request",
                         "use one client authentication method, not Basic and client_secret");
    if (basic && body_id && *body_id != basic->id)
      return oauth_error(401, "invalid_client", "client_id differs from the Basic credentials'");
    const auto id = basic ? std::optional(basic->id) : body_id;
    if (!id) return oauth_error(401, "invalid_client", "the request names no client");
    if (*id != options.client_id) return oauth_error(401, "invalid_client", "unknown client");
    if (!options.client_secret) return std::nullopt;  // a public client
    const auto secret = basic ? std::optional(basic->secret) : body_secret;
    if (!secret)
      return oauth_error(401, "invalid_client",
                         "client authentication is required (client_secret_basic or "
                         "client_secret_post)");
    if (!same_secret(*secret, *options.client_secret))
      return oauth_error(401, "invalid_client", "wrong client secret");
    return std::nullopt;
  }

  ApiReply token(const ApiRequest& request) {
    if (request.method != "POST") return method_not_allowed("POST");
    if (!form_encoded(request))
      return oauth_error(400, "invalid_request",
                         "the body must be application/x-www-form-urlencoded");
    const Form form(request.body);
    if (!form.repeated.empty())
      return oauth_error(400, "invalid_request", "the request repeats " + *form.repeated.begin());
    if (auto refused = authenticate_client(request, form)) return *refused;
    const auto grant_type = form.get("grant_type");
    if (!grant_type) return oauth_error(400, "invalid_request", "grant_type is required");
    if (*grant_type == "authorization_code") return code_grant(form);
    if (*grant_type == "password") return password_grant(form);
    return oauth_error(400, "unsupported_grant_type",
                       "grant_type must be authorization_code or password");
  }

  ApiReply code_grant(const Form& form) {
    const auto code = form.get("code");
    const auto redirect_uri = form.get("redirect_uri");
    if (!code) return oauth_error(400, "invalid_request", "code is required");
    if (!redirect_uri) return oauth_error(400, "invalid_request", "redirect_uri is required");
    IssuedCode issued;
    {
      // Taken out whatever follows: a code is good for one attempt (RFC 6749 section 4.1.2).
      std::lock_guard lock(mutex);
      const auto it = codes.find(*code);
      if (it == codes.end())
        return oauth_error(400, "invalid_grant", "unknown, expired or already used code");
      issued = std::move(it->second);
      codes.erase(it);
    }
    if (now() > issued.expires) return oauth_error(400, "invalid_grant", "the code has expired");
    if (form.get("client_id").value_or(options.client_id) != issued.client_id)
      return oauth_error(400, "invalid_grant", "the code was issued to another client");
    if (*redirect_uri != issued.redirect_uri)
      return oauth_error(400, "invalid_grant",
                         "redirect_uri differs from the authorization request's");
    const auto verifier = form.get("code_verifier");
    if (!verifier || !pkce_string(*verifier))
      return oauth_error(400, "invalid_grant",
                         "PKCE verification failed: code_verifier must be 43 to 128 unreserved "
                         "characters");
    if (crypto::base64url(crypto::sha256(*verifier)) != issued.code_challenge)
      return oauth_error(400, "invalid_grant",
                         "PKCE verification failed: the code_verifier does not match the "
                         "code_challenge");
    const OidcUser* u = find_user(issued.username);
    if (!u) return oauth_error(400, "invalid_grant", "the user no longer exists");
    return tokens(*u, issued.scope, issued.nonce, issued.auth_time);
  }

  ApiReply password_grant(const Form& form) {
    if (!form.get("username") || !form.get("password"))
      return oauth_error(400, "invalid_request", "username and password are required");
    const OidcUser* u = authenticate(form.get("username"), form.get("password"));
    if (!u) return oauth_error(400, "invalid_grant", "wrong user name or password");
    const auto scope = form.get("scope").value_or(std::string(kDefaultScope));
    if (!has_scope(scope, "openid"))
      return oauth_error(400, "invalid_scope", "the scope must include openid");
    return tokens(*u, scope, std::nullopt, now());
  }

  ApiReply tokens(const OidcUser& u, const std::string& scope,
                  const std::optional<std::string>& nonce, Clock::time_point auth_time) const {
    const auto iat = seconds_of(now());
    const auto exp = iat + options.token_lifetime.count();
    const auto iss = issuer_url();
    json id = {{"iss", iss},
               {"sub", u.subject},
               {"aud", options.client_id},
               {"exp", exp},
               {"iat", iat},
               {"auth_time", seconds_of(auth_time)},
               {"azp", options.client_id},
               {"preferred_username", u.username},
               {"name", u.name},
               {"email", u.email},
               {options.groups_claim, u.groups}};
    if (nonce) id["nonce"] = *nonce;
    const json access = {{"iss", iss},
                         {"sub", u.subject},
                         {"aud", options.client_id},
                         {"exp", exp},
                         {"iat", iat},
                         {"scope", scope},
                         {"client_id", options.client_id},
                         {"preferred_username", u.username},
                         {options.groups_claim, u.groups}};
    const auto key = current_signer();
    ApiReply reply = json_reply(200, {{"access_token", key->sign(access)},
                                      {"token_type", "Bearer"},
                                      {"expires_in", options.token_lifetime.count()},
                                      {"id_token", key->sign(id)},
                                      {"scope", scope}});
    reply.headers = {{"Cache-Control", "no-store"}, {"Pragma", "no-cache"}};
    return reply;
  }

  json discovery() const {
    const auto iss = issuer_url();
    return {
        {"issuer", iss},
        {"authorization_endpoint", iss + "/authorize"},
        {"token_endpoint", iss + "/token"},
        {"jwks_uri", iss + "/jwks"},
        {"response_types_supported", {"code"}},
        {"subject_types_supported", {"public"}},
        {"id_token_signing_alg_values_supported", {options.alg}},
        {"code_challenge_methods_supported", {"S256"}},
        {"grant_types_supported", {"authorization_code", "password"}},
        {"token_endpoint_auth_methods_supported",
         options.client_secret ? json{"client_secret_basic", "client_secret_post"} : json{"none"}},
        {"scopes_supported", {"openid", "profile", "email", "groups"}},
        {"claims_supported",
         {"iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "azp", "preferred_username",
          "name", "email", options.groups_claim}},
        {"authorization_response_iss_parameter_supported", true}};
  }

  ApiReply handle(const ApiRequest& request) {
    const auto path = request.path();
    if (path == "/.well-known/openid-configuration" || path == "/jwks") {
      if (request.method != "GET") return method_not_allowed("GET");
      return json_reply(200, path == "/jwks" ? key_set() : discovery());
    }
    if (path == "/authorize") return authorize(request);
    if (path == "/token") return token(request);
    return json_reply(404, {{"error", "not_found"},
                            {"error_description", "no such endpoint: " + std::string(path)}});
  }
};

OidcIssuer::OidcIssuer(boost::asio::io_context& io, OidcIssuerOptions options)
    : state_(std::make_shared<State>(std::move(options))),
      server_(io, [state = state_](const ApiRequest& request) { return state->handle(request); }) {}

OidcIssuer::~OidcIssuer() {
  close();
}

boost::asio::ip::tcp::endpoint OidcIssuer::listen(const boost::asio::ip::tcp::endpoint& endpoint) {
  const auto bound = server_.listen(endpoint);
  const auto address = bound.address();
  const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  std::lock_guard lock(state_->mutex);
  state_->issuer = "http://" + host + ":" + std::to_string(bound.port());
  return bound;
}

void OidcIssuer::close() {
  server_.close();
}

const OidcIssuerOptions& OidcIssuer::options() const {
  return state_->options;
}

std::string OidcIssuer::issuer() const {
  return state_->issuer_url();
}

nlohmann::json OidcIssuer::jwks() const {
  return state_->key_set();
}

void OidcIssuer::rotate_key() {
  // Generated outside the lock: an RSA key takes a while.
  auto fresh = std::make_shared<const TokenSigner>(TokenSigner::generate(state_->options.alg));
  std::lock_guard lock(state_->mutex);
  state_->previous = std::move(state_->signer);
  state_->signer = std::move(fresh);
}

std::string OidcIssuer::mint(const nlohmann::json& claims) const {
  return state_->current_signer()->sign(claims);
}

cloud::ApiReply OidcIssuer::handle(const cloud::ApiRequest& request) {
  return state_->handle(request);
}

}  // namespace ironhold::sim::oidc

#include "web/auth/oidc_provider.hpp"

#include <algorithm>

#include "inventory/crypto/jose/untrusted.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"
#include "web/auth/oidc_http.hpp"

namespace ironhold::web::auth {
namespace oidc_provider_detail {

using nlohmann::json;
using util::concat;

Error unavailable_error(std::string message) {
  return Error(ErrorKind::unavailable, std::move(message));
}

// The provider's JSON answer at `url`, which must be a 200 with a JSON object.
json fetch_json(const OidcConfig& config, const std::string& url, const char* what) {
  const OidcHttpResponse res = oidc_get(config, url);
  if (res.status != 200)
    throw unavailable_error(concat("the identity provider answered ", std::to_string(res.status),
                                   " for its ", what, " at ", url));
  std::string why;
  auto document = crypto::jose::detail::parse_object(res.body, why);
  if (!document)
    throw unavailable_error(concat("the identity provider's ", what, " at ", url, " ", why));
  return std::move(*document);
}

std::string endpoint(const OidcConfig& config, const json& discovery, const char* name) {
  const auto it = discovery.find(name);
  if (it == discovery.end() || !it->is_string())
    throw unavailable_error(concat("the identity provider's discovery document has no ", name));
  const std::string url = it->get<std::string>();
  const bool https = url.starts_with("https://");
  const bool http = url.starts_with("http://") && config.allow_plain_http;
  if (!https && !http)
    throw unavailable_error(concat("the identity provider's ", name, " ",
                                   crypto::jose::detail::quote_value(url),
                                   " is not an https:// URL"));
  return url;
}

// The kid a token's header names, if it has a readable one: decides whether an unknown key is
// worth fetching the key set again for. The token is verified properly afterwards.
std::optional<std::string> header_kid(std::string_view token) {
  const auto dot = token.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::vector<std::uint8_t> bytes;
  if (!crypto::jose::detail::decode_base64url(token.substr(0, dot), bytes)) return std::nullopt;
  std::string why;
  const auto header = crypto::jose::detail::parse_object(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), why);
  if (!header || !header->contains("kid") || !(*header)["kid"].is_string()) return std::nullopt;
  return (*header)["kid"].get<std::string>();
}

bool has_kid(const crypto::jose::JwkSet& keys, const std::string& kid) {
  return std::any_of(keys.keys().begin(), keys.keys().end(),
                     [&](const crypto::jose::Jwk& k) { return k.kid == kid; });
}

}  // namespace oidc_provider_detail

using namespace oidc_provider_detail;

std::string pkce_challenge(std::string_view code_verifier) {
  const auto digest = crypto::sha256(code_verifier);
  return crypto::base64url(digest);
}

OidcProvider::OidcProvider(OidcConfig config) : config_(std::move(config)) {}

OidcEndpoints OidcProvider::endpoints() {
  {
    std::lock_guard lock(mutex_);
    if (endpoints_) return *endpoints_;
  }
  std::string base = config_.issuer;
  if (base.ends_with('/')) base.pop_back();
  const std::string url = base + "/.well-known/openid-configuration";
  const json discovery = fetch_json(config_, url, "discovery document");
  // OpenID Connect Discovery 1.0 section 4.3: the document must be the issuer's own.
  if (!discovery.contains("issuer") || discovery["issuer"] != config_.issuer)
    throw unavailable_error(concat(
        "the discovery document at ", url, " names the issuer ",
        discovery.contains("issuer") && discovery["issuer"].is_string()
            ? crypto::jose::detail::quote_value(discovery["issuer"].get<std::string>())
            : std::string("(none)"),
        ", not ", config_.issuer, " as configured (oidc.issuer must be exactly the tokens' iss)"));
  OidcEndpoints found;
  found.authorization_endpoint = endpoint(config_, discovery, "authorization_endpoint");
  found.token_endpoint = endpoint(config_, discovery, "token_endpoint");
  found.jwks_uri = endpoint(config_, discovery, "jwks_uri");
  const auto announced = discovery.find("id_token_signing_alg_values_supported");
  for (const auto& alg : config_.algorithms) {
    const bool offered = announced == discovery.end() || !announced->is_array() ||
                         std::find(announced->begin(), announced->end(), alg) != announced->end();
    if (offered) found.algorithms.push_back(alg);
  }
  if (found.algorithms.empty())
    throw unavailable_error(concat(
        "the identity provider signs with none of the algorithms "
        "oidc.algorithms allows (",
        announced == discovery.end() ? std::string("none") : announced->dump(), " announced)"));
  std::lock_guard lock(mutex_);
  endpoints_ = found;
  return found;
}

std::shared_ptr<const crypto::jose::JwkSet> OidcProvider::keys(bool refetch) {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    if (keys_ && (!refetch || now - keys_fetched_ < config_.key_refetch_interval)) return keys_;
  }
  const std::string uri = endpoints().jwks_uri;
  auto set = std::make_shared<const crypto::jose::JwkSet>(
      crypto::jose::JwkSet::parse(fetch_json(config_, uri, "key set")));
  std::lock_guard lock(mutex_);
  keys_ = set;
  keys_fetched_ = now;
  return set;
}

crypto::jose::Claims OidcProvider::verify(std::string_view token,
                                          const crypto::jose::ClaimsExpectations& expected) {
  const crypto::jose::JwsOptions options{.allowed_algs = endpoints().algorithms};
  auto set = keys(false);
  // The issuer may have rotated its keys since they were fetched: a kid not in the set is worth
  // one more look (at most every key_refetch_interval).
  if (const auto kid = header_kid(token); kid && !has_kid(*set, *kid)) set = keys(true);
  return crypto::jose::verify_jwt(token, *set, options, expected, std::chrono::system_clock::now());
}

std::string OidcProvider::authorization_url(const std::string& state, const std::string& nonce,
                                            const std::string& code_verifier) {
  std::string scopes;
  for (const auto& s : config_.scopes) scopes += concat(scopes.empty() ? "" : " ", s);
  const std::string base = endpoints().authorization_endpoint;
  return concat(base, base.find('?') == std::string::npos ? "?" : "&",
                "response_type=code&client_id=", oauth_encode(config_.client_id),
                "&redirect_uri=", oauth_encode(config_.redirect_uri),
                "&scope=", oauth_encode(scopes), "&state=", oauth_encode(state),
                "&nonce=", oauth_encode(nonce), "&code_challenge=", pkce_challenge(code_verifier),
                "&code_challenge_method=S256");
}

crypto::jose::Claims OidcProvider::redeem(const std::string& code, const std::string& code_verifier,
                                          const std::string& nonce) {
  const std::string token_endpoint = endpoints().token_endpoint;
  const OidcHttpResponse res = oidc_post_form(config_, token_endpoint,
                                              {{"grant_type", "authorization_code"},
                                               {"code", code},
                                               {"redirect_uri", config_.redirect_uri},
                                               {"client_id", config_.client_id},
                                               {"code_verifier", code_verifier}});
  std::string why;
  const auto answer = crypto::jose::detail::parse_object(res.body, why);
  if (res.status != 200) {
    std::string error = "no error code";
    if (answer && answer->contains("error") && (*answer)["error"].is_string()) {
      error = crypto::jose::detail::quote_value((*answer)["error"].get<std::string>());
      if (answer->contains("error_description") && (*answer)["error_description"].is_string())
        error += concat(": ", crypto::jose::detail::quote_value(
                                  (*answer)["error_description"].get<std::string>()));
    }
    if (res.status >= 500)
      throw unavailable_error(
          concat("the identity provider's token endpoint answered ", std::to_string(res.status)));
    throw Error(ErrorKind::unauthenticated,
                concat("the identity provider refused the sign-in's code (",
                       std::to_string(res.status), ", ", error, ")"));
  }
  if (!answer || !answer->contains("id_token") || !(*answer)["id_token"].is_string())
    throw Error(ErrorKind::unauthenticated,
                "the identity provider's token endpoint sent no id_token (is \"openid\" among "
                "oidc.scopes?)");
  return verify((*answer)["id_token"].get<std::string>(),
                {.issuer = config_.issuer, .audience = config_.client_id, .nonce = nonce});
}

crypto::jose::Claims OidcProvider::verify_bearer(std::string_view token) {
  return verify(token, {.issuer = config_.issuer,
                        .audience = config_.bearer_audience(),
                        .check_authorized_party = false});
}

}  // namespace ironhold::web::auth

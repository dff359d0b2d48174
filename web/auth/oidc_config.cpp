#include "web/auth/oidc_config.hpp"

#include <boost/url/parse.hpp>

#include "inventory/crypto/jose/jws.hpp"
#include "inventory/error.hpp"
#include "inventory/model/json_fields.hpp"
#include "inventory/util/concat.hpp"
#include "web/auth/config_fields.hpp"

namespace ironhold::web::auth {
namespace oidc_config_detail {

using nlohmann::json;
using util::concat;

bool is_loopback_host(std::string_view host) {
  return host == "localhost" || host == "[::1]" || host == "::1" || host.starts_with("127.");
}

// An absolute http(s) URL without query or fragment; http only where allowed, and then only on
// loopback.
void check_url(const ConfigFields& fields, std::string_view key, const std::string& text,
               bool allow_plain_http) {
  const auto url = boost::urls::parse_absolute_uri(text);
  if (!url || url->has_query() || url->has_fragment() || url->host().empty())
    throw fields.error(key, "must be an absolute https:// URL without a query or fragment");
  const std::string scheme = url->scheme();
  if (scheme == "https") return;
  if (scheme != "http")
    throw fields.error(key, concat("must be an https:// URL, not ", scheme, "://"));
  if (!allow_plain_http)
    throw fields.error(key, concat("is http://: codes and tokens would cross the network in "
                                   "clear (use https://; \"",
                                   fields.name("allow_plain_http"),
                                   "\": true allows http:// on loopback, for tests)"));
  if (!is_loopback_host(url->host()))
    throw fields.error(key, "is http:// on a host other than loopback, which is never allowed");
}

std::vector<std::string> string_list(const ConfigFields& fields, std::string_view key,
                                     std::vector<std::string> fallback) {
  const auto it = fields.object.find(key);
  if (it == fields.object.end() || it->is_null()) return fallback;
  if (!it->is_array() || it->empty()) throw wrong_type(fields.name(key), "a list of strings", *it);
  std::vector<std::string> out;
  for (const auto& item : *it) {
    if (!item.is_string() || item.get<std::string>().empty() ||
        item.get<std::string>().find_first_of(" \t\r\n") != std::string::npos)
      throw fields.error(key, "must hold non-empty strings without spaces");
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace oidc_config_detail

OidcConfig parse_oidc_config(const nlohmann::json& oidc, const std::string& where) {
  using namespace oidc_config_detail;
  if (!oidc.is_object()) throw wrong_type(where, "an object", oidc);
  reject_unknown_keys(
      oidc,
      {"issuer", "client_id", "client_secret", "client_secret_file", "redirect_uri", "scopes",
       "username_claim", "roles_claim", "audience", "bearer_tokens", "algorithms", "ca_file",
       "allow_plain_http", "label", "timeout_s", "key_refetch_interval_s"},
      where, ErrorKind::invalid);
  const ConfigFields fields{oidc, where};
  OidcConfig config;
  config.allow_plain_http = fields.boolean("allow_plain_http").value_or(false);
  config.issuer = fields.required_text("issuer");
  check_url(fields, "issuer", config.issuer, config.allow_plain_http);
  config.client_id = fields.required_text("client_id");
  const auto secret = fields.text("client_secret");
  const auto secret_file = fields.text("client_secret_file");
  if (secret && secret_file)
    throw fields.error("client_secret", concat("and \"", fields.name("client_secret_file"),
                                               "\" are both set: keep one"));
  if (secret) config.client_secret = *secret;
  if (secret_file) {
    config.client_secret = fields.secret_file("client_secret_file", *secret_file);
    config.client_secret_file = *secret_file;
  }
  config.redirect_uri = fields.required_text("redirect_uri");
  check_url(fields, "redirect_uri", config.redirect_uri, config.allow_plain_http);
  if (!config.redirect_uri.ends_with(kOidcCallbackPath))
    throw fields.error("redirect_uri",
                       concat("must end in ", kOidcCallbackPath,
                              ", the route that finishes a sign-in (as browsers reach this "
                              "service: https://ironhold.example.com",
                              kOidcCallbackPath, ")"));
  config.scopes = string_list(fields, "scopes", config.scopes);
  if (std::find(config.scopes.begin(), config.scopes.end(), "openid") == config.scopes.end())
    throw fields.error("scopes", "must include \"openid\" (without it there is no ID token)");
  if (auto claim = fields.text("username_claim")) config.username_claim = *claim;
  if (auto claim = fields.text("roles_claim")) config.roles_claim = *claim;
  if (auto audience = fields.text("audience")) config.audience = *audience;
  config.bearer_tokens = fields.boolean("bearer_tokens").value_or(true);
  config.algorithms = string_list(fields, "algorithms", config.algorithms);
  for (const auto& alg : config.algorithms)
    if (!crypto::jose::is_supported_alg(alg))
      throw fields.error("algorithms",
                         concat("has \"", alg,
                                "\", which Ironhold does not verify (RS256, RS384, RS512, PS256, "
                                "PS384, PS512, ES256, ES384 and ES512; never none or HS*)"));
  if (const auto ca = fields.text("ca_file")) {
    fields.check_ca_file("ca_file", *ca);
    config.ca_file = *ca;
  }
  if (auto label = fields.text("label")) config.label = *label;
  config.timeout = fields.seconds("timeout_s", config.timeout, 1, 60);
  config.key_refetch_interval =
      fields.seconds("key_refetch_interval_s", config.key_refetch_interval, 0, 3600);
  return config;
}

std::string describe(const OidcConfig& config) {
  std::string scopes;
  for (const auto& s : config.scopes) scopes += (scopes.empty() ? "" : " ") + s;
  return util::concat(
      "OIDC issuer ", config.issuer,
      " (CA: ", config.ca_file.empty() ? std::string("the system's trust store") : config.ca_file,
      "); client ", config.client_id,
      config.client_secret.empty() ? std::string(" (public, PKCE only)")
      : config.client_secret_file.empty()
          ? std::string(" (secret in the configuration)")
          : util::concat(" (secret from ", config.client_secret_file, ")"),
      "; redirect ", config.redirect_uri, "; scopes ", scopes, "; user name from ",
      config.username_claim, ", roles from ", config.roles_claim, "; Bearer JWTs ",
      config.bearer_tokens ? util::concat("accepted for audience ", config.bearer_audience())
                           : std::string("refused"));
}

}  // namespace ironhold::web::auth

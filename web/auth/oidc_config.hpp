#pragma once
// How Ironhold uses the organisation's OpenID Connect provider, read from the "oidc" object of
// the identity configuration:
//
//   {"issuer": "https://login.example.com/realms/ops",
//    "client_id": "ironhold",
//    "client_secret_file": "/etc/ironhold/oidc-client-secret",
//    "redirect_uri": "https://ironhold.example.com/api/v1/session/oidc/callback",
//    "roles": [{"value": "gpu-ops", "project": "research", "role": "operator"}]}
//
// The console signs people in with the authorization-code flow and PKCE; scripts may send the
// provider's JWT access tokens as Bearer tokens. Both are checked against the keys the issuer
// publishes (its discovery document's jwks_uri).
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::web::auth {

// The callback path every redirect_uri ends in: the route that finishes a console sign-in.
inline constexpr std::string_view kOidcCallbackPath = "/api/v1/session/oidc/callback";

struct OidcConfig {
  // Exactly as the tokens' "iss" says it; the discovery document is read from
  // <issuer>/.well-known/openid-configuration.
  std::string issuer;
  std::string client_id;
  // Empty: a public client, which proves itself with PKCE alone.
  std::string client_secret;  // never logged, never in a message
  std::string client_secret_file;
  // Where the provider sends the browser back: this service's callback, as browsers reach it.
  std::string redirect_uri;
  std::vector<std::string> scopes = {"openid", "profile", "email"};
  // The claim naming the user here, and the claim whose values map to roles (a string or an
  // array of strings).
  std::string username_claim = "preferred_username";
  std::string roles_claim = "groups";
  // What a Bearer JWT's "aud" must contain; empty: the client_id.
  std::string audience;
  // Whether scripts may send the provider's JWT access tokens as Bearer tokens.
  bool bearer_tokens = true;
  // The signature algorithms accepted (narrowed further by what the issuer announces).
  std::vector<std::string> algorithms = {"RS256", "ES256"};
  // The provider's CA certificates (PEM); empty: the system's trust store.
  std::string ca_file;
  // An http:// issuer: tokens and codes would cross the network in clear. For a provider on
  // this host's loopback only (tests); refused for any other host.
  bool allow_plain_http = false;
  // The label of the console's sign-in button.
  std::string label = "Sign in with single sign-on";
  std::chrono::seconds timeout{10};  // per request to the provider
  // The least time between two fetches of the key set when a token names a kid it lacks, so
  // that tokens with made-up kids cannot make this service hammer the provider.
  std::chrono::seconds key_refetch_interval{30};

  const std::string& bearer_audience() const { return audience.empty() ? client_id : audience; }
};

// Reads the "oidc" object (without its "roles", which identity_config.cpp reads). Throws
// Error(invalid) naming the field.
OidcConfig parse_oidc_config(const nlohmann::json& oidc, const std::string& where = "oidc");

// One line for logs. Never the client secret.
std::string describe(const OidcConfig& config);

}  // namespace ironhold::web::auth

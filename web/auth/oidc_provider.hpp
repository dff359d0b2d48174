#pragma once
// The organisation's OpenID Connect provider, as a relying party (the console's sign-in) and a
// resource server (Bearer JWTs from scripts) use it: its discovery document and key set, fetched
// when first needed and cached; the authorization request; the token endpoint; and the checks of
// the tokens it issues. Thread-safe: called from the blocking pool, several sign-ins at once.
// Nothing is fetched at startup, so a provider that is down then does not hold the service up; a
// wrong issuer shows at the first sign-in, on the sign-in page and in the log.
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/crypto/jose/jwt.hpp"
#include "web/auth/oidc_config.hpp"

namespace ironhold::web::auth {

// What the discovery document says (OpenID Connect Discovery 1.0 section 3).
struct OidcEndpoints {
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string jwks_uri;
  std::vector<std::string> algorithms;  // ours, narrowed to those the issuer announces
};

class OidcProvider {
 public:
  explicit OidcProvider(OidcConfig config);

  const OidcConfig& config() const noexcept { return config_; }

  // The provider's authorization endpoint with this sign-in's request: response_type=code, the
  // client, redirect_uri, scopes, state, nonce, and the PKCE S256 challenge of `code_verifier`.
  std::string authorization_url(const std::string& state, const std::string& nonce,
                                const std::string& code_verifier);

  // Redeems an authorization code at the token endpoint and checks the ID token that comes
  // back: its signature with the issuer's keys, iss, aud (the client), azp, exp/iat, and the
  // nonce this sign-in sent. Throws Error: unauthenticated when the provider refuses the code or
  // a check fails (saying which), unavailable when it cannot be reached.
  crypto::jose::Claims redeem(const std::string& code, const std::string& code_verifier,
                              const std::string& nonce);

  // Checks a JWT a script sent as a Bearer token: signature, iss, aud (bearer_audience), time.
  crypto::jose::Claims verify_bearer(std::string_view token);

 private:
  OidcEndpoints endpoints();
  std::shared_ptr<const crypto::jose::JwkSet> keys(bool refetch);
  crypto::jose::Claims verify(std::string_view token, const crypto::jose::ClaimsExpectations& e);

  OidcConfig config_;
  std::mutex mutex_;
  std::optional<OidcEndpoints> endpoints_;
  std::shared_ptr<const crypto::jose::JwkSet> keys_;
  std::chrono::steady_clock::time_point keys_fetched_{};
};

// The PKCE S256 challenge of a verifier: BASE64URL(SHA256(verifier)) (RFC 7636 section 4.2).
std::string pkce_challenge(std::string_view code_verifier);

}  // namespace ironhold::web::auth

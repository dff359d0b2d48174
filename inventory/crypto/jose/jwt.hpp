#pragma once
// The claims of a JWT (RFC 7519) as an OpenID Connect relying party checks them in an ID token
// (OpenID Connect Core 1.0 section 3.1.3.7) or a resource server in an access token: who issued
// it, for whom, and when it is valid. The signature is jws.hpp's business; verify_jwt does both.
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "inventory/crypto/jose/jwk.hpp"
#include "inventory/crypto/jose/jws.hpp"

namespace ironhold::crypto::jose {

struct ClaimsExpectations {
  std::string issuer;    // "iss" must be exactly this
  std::string audience;  // "aud" (a string or an array) must contain this
  // What "azp" must be when present, and must be present as when "aud" has several values. Empty:
  // the audience, as in an ID token, whose audience is the client.
  std::string client_id{};
  // ID tokens: the nonce sent with the authentication request, which "nonce" must equal.
  std::optional<std::string> nonce{};
  // ID tokens: "azp" is checked as above. Access tokens (RFC 9068) may have been issued to any
  // client for this audience, so their "azp" says nothing about this service: false skips it.
  bool check_authorized_party = true;
  // Allowed clock difference between the issuer and this host, both ways.
  std::chrono::seconds leeway{60};
};

struct Claims {
  std::string subject;  // "sub"
  nlohmann::json all;   // the whole claim set
};

// Checks a claim set that has been verified (by signature) already. "exp" is required and must
// not have passed; "nbf" and "iat", when present, must not be in the future; each by more than
// the leeway. Throws ironhold::Error (unauthenticated) saying which claim is wrong and how.
Claims check_claims(const nlohmann::json& claims, const ClaimsExpectations& expected,
                    std::chrono::system_clock::time_point now);

// The whole check of a JWT: its JWS with the key its header chooses from `keys`, its payload as a
// JSON object, and its claims.
Claims verify_jwt(std::string_view token, const JwkSet& keys, const JwsOptions& options,
                  const ClaimsExpectations& expected, std::chrono::system_clock::time_point now);

}  // namespace ironhold::crypto::jose

#pragma once
// Verifying a JWS in its compact serialization (RFC 7515 section 7.1), header.payload.signature,
// which is how OpenID Connect ID tokens and JWT access tokens arrive. Each choice below closes a
// known way of forging a token that verifiers have fallen for:
// - The caller passes the algorithms it allows; a token's header never decides how it is checked
//   on its own. Whatever the caller passes, only RS*, PS* and ES* (algorithms.hpp) are verified:
//   "none" would be a token without a signature.
// - No symmetric algorithm (HS*) and no symmetric key, ever: an issuer's public key is public, so
//   a verifier that accepts HS256 can be handed a token MACed with that public key as the secret.
// - The alg must fit the key: RS* and PS* only with RSA keys, ES256 only with a P-256 key, ES384
//   with P-384, ES512 with P-521, and only the alg a key names when it names one.
// - Keys come from the caller only. A key the header carries or points to ("jwk", "jku", "x5c",
//   "x5u") is never used: a forger would simply put their own there.
// - A header with "crit" is refused: it lists extensions the verifier must understand to get the
//   meaning right (RFC 7515 section 4.1.11), and Ironhold understands none; "b64": false, for one,
//   changes what was signed (RFC 7797).
// - Hostile input: the token is capped in size (16 KiB by default), each part must be canonical
//   base64url, the header a JSON object without duplicate names, and an ECDSA signature exactly
//   R || S of its curve's size. Errors say what was wrong and never echo the token.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/crypto/jose/jwk.hpp"

namespace ironhold::crypto::jose {

struct JwsOptions {
  // The algorithms accepted, such as {"RS256", "ES256"}: what the issuer announces in its
  // discovery document's id_token_signing_alg_values_supported, narrowed by configuration. A name
  // that is not one Ironhold verifies never matches.
  std::vector<std::string> allowed_algs;
  std::size_t max_size = 16 * 1024;
};

struct VerifiedJws {
  nlohmann::json header;  // the protected header, a JSON object
  // The payload's bytes. A JWS may sign any content (RFC 7520's examples sign a line of prose);
  // verify_jwt (jwt.hpp) is what reads a payload as a claim set.
  std::string payload;
  std::string alg;  // the header's, as verified
};

// Whether Ironhold verifies `alg` at all: for checking configuration when it is loaded.
bool is_supported_alg(std::string_view alg);

// Verifies `token` with `key`, or with the key of `keys` that its kid and alg choose (see
// JwkSet::find). Throws ironhold::Error (unauthenticated) saying what was wrong.
VerifiedJws verify_compact(std::string_view token, const Jwk& key, const JwsOptions& options);
VerifiedJws verify_compact(std::string_view token, const JwkSet& keys, const JwsOptions& options);

}  // namespace ironhold::crypto::jose

#pragma once
// Public keys from JSON Web Keys (RFC 7517, RFC 7518 section 6) and from an issuer's key set, for
// verifying signatures only. A JWK is accepted only when it can verify one of the algorithms in
// algorithms.hpp: an RSA key of 2048 bits or more, or an EC key on P-256, P-384 or P-521 whose
// point is on its curve. Symmetric ("oct") keys are never accepted: a verifier that takes an
// HMAC key from a key set can be handed a token "signed" with HS256 under a public key everybody
// knows.
#include <openssl/types.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::crypto::jose {

// An OpenSSL public key, shared by copies (EVP_PKEY is reference counted and immutable here).
class PublicKey {
 public:
  PublicKey() = default;
  explicit PublicKey(EVP_PKEY* adopted) noexcept : key_(adopted) {}
  PublicKey(const PublicKey& other);
  PublicKey& operator=(const PublicKey& other);
  PublicKey(PublicKey&&) noexcept = default;
  PublicKey& operator=(PublicKey&&) noexcept = default;
  ~PublicKey() = default;

  EVP_PKEY* get() const noexcept { return key_.get(); }
  explicit operator bool() const noexcept { return key_ != nullptr; }

 private:
  struct Free {
    void operator()(EVP_PKEY* key) const noexcept;
  };
  std::unique_ptr<EVP_PKEY, Free> key_;
};

struct Jwk {
  std::string kty;  // "RSA" or "EC"
  std::string crv;  // "P-256", "P-384" or "P-521" for EC; empty for RSA
  std::string kid;  // empty when the JWK has none
  std::string alg;  // the one alg the key is for, or empty for any that fits its type
  std::string use;  // "sig" or empty
  int bits = 0;     // the RSA modulus or the curve
  PublicKey key;

  // Whether a token signed with `alg` may be verified with this key: the alg is one Ironhold
  // verifies, of the key's type (RS and PS for RSA; ES256 only on P-256, and so on), and the
  // key's own "alg", when it has one, is that alg.
  bool fits(std::string_view alg) const;
  // "RSA 2048-bit key 'kid'" or "EC P-256 key 'kid'", for messages.
  std::string describe() const;
};

// Throws ironhold::Error (invalid) saying what makes the JWK unusable for verifying signatures:
// a missing or malformed member, an unsupported kty or curve, a short modulus, a point off its
// curve, "use": "enc", "key_ops" without "verify", an alg Ironhold does not verify, or private
// key members (a published key that carries its private half has leaked).
Jwk parse_jwk(const nlohmann::json& jwk);

// A key the set holds but cannot use, and why; kept so that an operator can be told why a token
// from the issuer is refused.
struct SkippedKey {
  std::size_t index = 0;  // in the document's "keys"
  std::string kid;        // empty when it has none
  std::string reason;
};

class JwkSet {
 public:
  JwkSet() = default;
  // A JWK Set document ({"keys": [...]}). Throws ironhold::Error (invalid) when the document is
  // not one; a key that cannot be used is skipped and listed in skipped().
  static JwkSet parse(const nlohmann::json& document);

  const std::vector<Jwk>& keys() const noexcept { return keys_; }
  const std::vector<SkippedKey>& skipped() const noexcept { return skipped_; }

  // The key to verify a token whose header has `kid` (nullopt when it has none) and `alg`. With
  // a kid, the one key of that kid that fits the alg; without, the only key that fits the alg, so
  // that a kid-less token is never checked against whichever key happens to come first. Throws
  // ironhold::Error (unauthenticated) saying why no key was chosen.
  const Jwk& find(std::optional<std::string_view> kid, std::string_view alg) const;

 private:
  std::vector<Jwk> keys_;
  std::vector<SkippedKey> skipped_;
};

}  // namespace ironhold::crypto::jose

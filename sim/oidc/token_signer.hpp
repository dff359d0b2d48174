#pragma once
// The simulated identity provider's signing key: generated (or read from a PEM file), published as
// a public JWK, and used to sign JWTs in the compact JWS serialization (RFC 7515 section 7.1).
// Only what a relying party under test must accept: ES256 on P-256 and RS256 with RSA >= 2048.
#include <openssl/types.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ironhold::sim::oidc {

class TokenSigner {
 public:
  // A fresh key for `alg` ("ES256": P-256, "RS256": RSA 2048). Throws ironhold::Error (invalid)
  // for another alg.
  static TokenSigner generate(std::string_view alg);
  // The private key of a PEM file (PKCS#8 or the traditional EC/RSA forms, unencrypted). Throws
  // ironhold::Error (invalid) when it cannot be read or does not fit `alg`: ES256 needs an EC key
  // on P-256, RS256 an RSA key of at least 2048 bits.
  static TokenSigner load_pem(const std::filesystem::path& file, std::string_view alg);

  const std::string& alg() const noexcept { return alg_; }
  // The RFC 7638 thumbprint of the public key: stable for a key file across restarts, and a new
  // one after each rotation.
  const std::string& kid() const noexcept { return kid_; }
  // {"kty", "kid", "use": "sig", "alg", and "crv"/"x"/"y" or "n"/"e"}: never a private member.
  const nlohmann::json& public_jwk() const noexcept { return jwk_; }

  // header.payload.signature of `claims`, the header {"alg", "kid", "typ": "JWT"}. Safe to call
  // from several threads at once (each call has its own OpenSSL context).
  std::string sign(const nlohmann::json& claims) const;

 private:
  TokenSigner(std::shared_ptr<EVP_PKEY> key, std::string alg);

  std::shared_ptr<EVP_PKEY> key_;
  std::string alg_;
  std::string kid_;
  nlohmann::json jwk_;
};

}  // namespace ironhold::sim::oidc

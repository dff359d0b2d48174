#pragma once
// The JOSE names Ironhold verifies (RFC 7518 sections 3.3 to 3.5, and the curves of 6.2.1.1) and
// what each means in OpenSSL's terms. One table for the key parser and the signature verifier, so
// "which key may verify which alg" cannot drift between them. Symmetric (HS*) and "none" are
// absent on purpose: see jws.hpp.
#include <cstddef>
#include <string_view>

namespace ironhold::crypto::jose {

enum class SignatureScheme { rsa_pkcs1_v1_5, rsa_pss, ecdsa };

struct Curve {
  std::string_view crv;         // the JWK name: "P-256"
  const char* group;            // OpenSSL's group name: "prime256v1"
  std::size_t coordinate_size;  // bytes of x, of y, and of each of R and S in a signature
};

struct Algorithm {
  std::string_view name;  // "ES256"
  SignatureScheme scheme;
  const char* digest;            // OpenSSL's digest name: "SHA256"
  const Curve* curve = nullptr;  // ECDSA only: the one curve this alg is defined on
};

// Null for a name Ironhold does not verify, which includes every symmetric alg and "none".
const Algorithm* find_algorithm(std::string_view name);
// Null for a curve other than P-256, P-384 and P-521.
const Curve* find_curve(std::string_view crv);
// "RS256, RS384, ..." for messages.
std::string_view supported_algorithm_names();

}  // namespace ironhold::crypto::jose

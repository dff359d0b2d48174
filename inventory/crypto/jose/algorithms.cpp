#include "inventory/crypto/jose/algorithms.hpp"

#include <array>

namespace ironhold::crypto::jose {
namespace algorithms_detail {

// P-521's coordinates are 521 bits, so 66 bytes each (RFC 7518 section 3.4: ceil(bits / 8)).
constexpr std::array<Curve, 3> curves{{
    {"P-256", "prime256v1", 32},
    {"P-384", "secp384r1", 48},
    {"P-521", "secp521r1", 66},
}};

// PS*: the salt is as long as the digest and MGF1 uses the same digest (RFC 7518 section 3.5).
constexpr std::array<Algorithm, 9> algorithms{{
    {"RS256", SignatureScheme::rsa_pkcs1_v1_5, "SHA256"},
    {"RS384", SignatureScheme::rsa_pkcs1_v1_5, "SHA384"},
    {"RS512", SignatureScheme::rsa_pkcs1_v1_5, "SHA512"},
    {"PS256", SignatureScheme::rsa_pss, "SHA256"},
    {"PS384", SignatureScheme::rsa_pss, "SHA384"},
    {"PS512", SignatureScheme::rsa_pss, "SHA512"},
    {"ES256", SignatureScheme::ecdsa, "SHA256", &curves[0]},
    {"ES384", SignatureScheme::ecdsa, "SHA384", &curves[1]},
    {"ES512", SignatureScheme::ecdsa, "SHA512", &curves[2]},
}};

}  // namespace algorithms_detail

const Algorithm* find_algorithm(std::string_view name) {
  for (const Algorithm& a : algorithms_detail::algorithms)
    if (a.name == name) return &a;
  return nullptr;
}

const Curve* find_curve(std::string_view crv) {
  for (const Curve& c : algorithms_detail::curves)
    if (c.crv == crv) return &c;
  return nullptr;
}

std::string_view supported_algorithm_names() {
  return "RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512";
}

}  // namespace ironhold::crypto::jose

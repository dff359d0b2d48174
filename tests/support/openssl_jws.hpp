#pragma once
// JWS tokens signed by the openssl command-line tool, so that what a verifier should accept is
// decided by OpenSSL's own signer rather than by the code under test. Used by the JOSE tests and
// by the OIDC tests' bearer tokens. Failures throw std::runtime_error naming the openssl command.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ironhold::test {

struct OpensslSigner {
  std::filesystem::path private_key;  // PEM, as `openssl genpkey` wrote it
  std::string alg;                    // ES256, ES384, ES512, RS256, PS256, ...
  nlohmann::json jwk;                 // the public key as openssl printed it, as a JWK
  std::size_t coordinate_size = 0;    // ECDSA only: bytes of R and of S
};

// A new key pair in `dir` (which must exist), named by `kid`.
OpensslSigner openssl_ec_signer(const std::filesystem::path& dir, const std::string& kid,
                                const std::string& curve, const std::string& alg,
                                std::size_t coordinate_size);
OpensslSigner openssl_rsa_signer(const std::filesystem::path& dir, const std::string& kid,
                                 const std::string& alg);

// The compact JWS of `header`.`payload`. ECDSA signatures are converted from openssl's DER to
// the R || S a JWS carries, unless `der_signature` asks for them as openssl wrote them.
std::string openssl_sign(const OpensslSigner& signer, const nlohmann::json& header,
                         const std::string& payload, bool der_signature = false);

// Runs /usr/bin/openssl (Debian package openssl) and returns what it printed.
std::string run_openssl(const std::vector<std::string>& args);

}  // namespace ironhold::test

#pragma once
// What the JOSE test files share: RFC 7520's vectors, the openssl tool's signers (made once per
// run, since RSA key generation takes a while), a refusal catcher and a claim set that passes.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "inventory/crypto/jose/jwk.hpp"
#include "inventory/crypto/jose/jws.hpp"
#include "inventory/crypto/jose/jwt.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"
#include "tests/support/openssl_jws.hpp"

// These names are apart from those of the other test files compiled with them.
namespace jose_test {

using namespace ironhold;
using namespace ironhold::crypto::jose;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;
using nlohmann::json;
using test::OpensslSigner;

inline json rfc7520() {
  const auto file = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() /
                    "data" / "jose" / "rfc7520.json";
  std::ifstream in(file);
  REQUIRE(in);
  return json::parse(in);
}

inline std::string b64(std::string_view text) {
  return crypto::base64url(
      std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

inline std::string b64(const std::vector<std::uint8_t>& bytes) {
  return crypto::base64url(bytes);
}

// The message of the ironhold::Error that `attempt` throws, which must be of `kind`.
template <typename F>
std::string refusal(F&& attempt, ErrorKind kind = ErrorKind::unauthenticated) {
  try {
    attempt();
  } catch (const Error& e) {
    CHECK(e.kind() == kind);
    return e.what();
  }
  FAIL_CHECK("accepted, though it should have been refused");
  return "(accepted)";
}

// `token` with the character at `index` replaced by another of the base64url alphabet.
inline std::string with_changed_char(std::string token, std::size_t index) {
  token[index] = token[index] == 'A' ? 'B' : 'A';
  return token;
}

// ---- Tokens signed by the openssl command-line tool ----

struct Workdir {
  std::filesystem::path path;
  Workdir() {
    std::string templ = (std::filesystem::temp_directory_path() / "ironhold-jose-XXXXXX").string();
    REQUIRE(::mkdtemp(templ.data()) != nullptr);
    path = templ;
  }
  ~Workdir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

struct Signers {
  Workdir dir;
  OpensslSigner ec1 = test::openssl_ec_signer(dir.path, "ec-1", "P-256", "ES256", 32);
  OpensslSigner ec2 = test::openssl_ec_signer(dir.path, "ec-2", "P-256", "ES256", 32);
  OpensslSigner ec384 = test::openssl_ec_signer(dir.path, "ec-384", "P-384", "ES384", 48);
  OpensslSigner rsa = test::openssl_rsa_signer(dir.path, "rsa-1", "RS256");
};

inline const Signers& signers() {
  static const Signers all;
  return all;
}

inline std::string sign(const OpensslSigner& signer, const json& header, const std::string& payload,
                        bool der_signature = false) {
  return test::openssl_sign(signer, header, payload, der_signature);
}

inline std::string sign(const OpensslSigner& signer, const json& header, const json& claims) {
  return test::openssl_sign(signer, header, claims.dump());
}

inline const JwsOptions es_and_rs{.allowed_algs = {"ES256", "ES384", "ES512", "RS256", "PS256"}};

// ---- Claims ----

inline const auto now = std::chrono::system_clock::time_point(1'700'000'000s);
constexpr std::int64_t now_s = 1'700'000'000;

inline json good_claims() {
  return {{"iss", "https://idp.example"}, {"aud", "ironhold"}, {"sub", "alice"},
          {"exp", now_s + 300},           {"iat", now_s - 10}, {"nbf", now_s - 10},
          {"nonce", "n-0S6_WzA2Mj"}};
}

inline ClaimsExpectations expectations() {
  return {.issuer = "https://idp.example", .audience = "ironhold", .nonce = "n-0S6_WzA2Mj"};
}

}  // namespace jose_test

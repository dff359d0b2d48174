// The simulated OpenID Connect issuer's keys: rotation, tokens checked both by Ironhold's own
// JOSE verifier and by the openssl command-line tool, and key files as given.
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>

#include "tests/sim/oidc_issuer_support.hpp"

namespace oidc_issuer_test {
namespace {

// The PEM public key of a JWK, built with OpenSSL's own API, for the openssl tool to verify with.
std::string pem_of(const json& jwk) {
  const auto bytes = [&](const char* name) {
    std::vector<std::uint8_t> out;
    REQUIRE(ironhold::crypto::from_base64url(jwk.at(name).get<std::string>(), out));
    return out;
  };
  std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> builder(OSSL_PARAM_BLD_new(),
                                                                          OSSL_PARAM_BLD_free);
  std::vector<std::unique_ptr<BIGNUM, decltype(&BN_free)>> numbers;
  std::vector<std::uint8_t> point{0x04};
  const bool rsa = jwk.at("kty") == "RSA";
  if (rsa) {
    for (const auto& [member, param] :
         {std::pair{"n", OSSL_PKEY_PARAM_RSA_N}, std::pair{"e", OSSL_PKEY_PARAM_RSA_E}}) {
      const auto b = bytes(member);
      numbers.emplace_back(BN_bin2bn(b.data(), static_cast<int>(b.size()), nullptr), BN_free);
      REQUIRE(OSSL_PARAM_BLD_push_BN(builder.get(), param, numbers.back().get()) == 1);
    }
  } else {
    REQUIRE(jwk.at("crv") == "P-256");
    for (const char* member : {"x", "y"}) {
      const auto b = bytes(member);
      point.insert(point.end(), b.begin(), b.end());
    }
    REQUIRE(OSSL_PARAM_BLD_push_utf8_string(builder.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1",
                                            0) == 1);
    REQUIRE(OSSL_PARAM_BLD_push_octet_string(builder.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                             point.size()) == 1);
  }
  std::unique_ptr<OSSL_PARAM, decltype(&OSSL_PARAM_free)> params(
      OSSL_PARAM_BLD_to_param(builder.get()), OSSL_PARAM_free);
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(
      EVP_PKEY_CTX_new_from_name(nullptr, rsa ? "RSA" : "EC", nullptr), EVP_PKEY_CTX_free);
  EVP_PKEY* raw = nullptr;
  REQUIRE(EVP_PKEY_fromdata_init(ctx.get()) == 1);
  REQUIRE(EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) == 1);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(raw, EVP_PKEY_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> out(BIO_new(BIO_s_mem()), BIO_free);
  REQUIRE(PEM_write_bio_PUBKEY(out.get(), key.get()) == 1);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

// A JWS signature as `openssl dgst` takes it: RSA as it is, ECDSA's R || S re-encoded as DER.
std::string openssl_signature(const std::vector<std::uint8_t>& jws_signature, bool ecdsa) {
  if (!ecdsa) return std::string(jws_signature.begin(), jws_signature.end());
  REQUIRE(jws_signature.size() == 64);
  std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> sig(ECDSA_SIG_new(), ECDSA_SIG_free);
  BIGNUM* r = BN_bin2bn(jws_signature.data(), 32, nullptr);
  BIGNUM* s = BN_bin2bn(jws_signature.data() + 32, 32, nullptr);
  REQUIRE(ECDSA_SIG_set0(sig.get(), r, s) == 1);
  unsigned char* der = nullptr;
  const int size = i2d_ECDSA_SIG(sig.get(), &der);
  REQUIRE(size > 0);
  std::string out(reinterpret_cast<char*>(der), static_cast<std::size_t>(size));
  OPENSSL_free(der);
  return out;
}

// Whether `openssl dgst -verify` accepts `token`'s signature under the public key `jwk`.
bool openssl_verifies(const std::string& token, const json& jwk, const fs::path& dir) {
  const auto last_dot = token.rfind('.');
  std::vector<std::uint8_t> signature;
  REQUIRE(ironhold::crypto::from_base64url(token.substr(last_dot + 1), signature));
  std::ofstream(dir / "key.pem") << pem_of(jwk);
  std::ofstream(dir / "input.txt", std::ios::binary) << token.substr(0, last_dot);
  std::ofstream(dir / "sig.bin", std::ios::binary)
      << openssl_signature(signature, jwk.at("kty") == "EC");
  try {
    const auto out = ironhold::test::run_openssl(
        {"dgst", "-sha256", "-verify", (dir / "key.pem").string(), "-signature",
         (dir / "sig.bin").string(), (dir / "input.txt").string()});
    return out.find("Verified OK") != std::string::npos;
  } catch (const std::runtime_error& e) {
    INFO(e.what());
    return false;  // openssl exits 1 on a bad signature
  }
}

}  // namespace

TEST_CASE("a rotated key joins the key set beside the previous one", "[oidc]") {
  IssuerOnLoopback idp(test_options());
  const auto password_token = [&] {
    return post(idp.origin + "/token", {{"grant_type", "password"},
                                        {"client_id", "ironhold"},
                                        {"username", "dana"},
                                        {"password", "dana-pass"}})
        .doc()["id_token"]
        .get<std::string>();
  };
  const std::string before = password_token();
  const std::string old_kid = get(idp.origin + "/jwks").doc()["keys"][0]["kid"];
  idp.issuer.rotate_key();
  const std::string after = password_token();
  const json set = get(idp.origin + "/jwks").doc();
  REQUIRE(set["keys"].size() == 2);
  const std::string new_kid = header_of(after)["kid"];
  CHECK(new_kid != old_kid);
  CHECK(header_of(before)["kid"] == old_kid);
  std::set<std::string> kids;
  for (const auto& key : set["keys"]) kids.insert(key["kid"].get<std::string>());
  CHECK(kids == std::set<std::string>{old_kid, new_kid});
  const auto keys = jose::JwkSet::parse(set);
  for (const auto& token : {before, after})
    CHECK_NOTHROW(jose::verify_jwt(token, keys, only("ES256"), {idp.origin, "ironhold"},
                                   std::chrono::system_clock::now()));

  // mint() signs what it is given with the current key: here a token already expired.
  const long long now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  const json claims = {{"iss", idp.origin}, {"sub", "x"}, {"aud", "ironhold"}, {"exp", now - 600}};
  const std::string minted = idp.issuer.mint(claims);
  CHECK(header_of(minted)["kid"] == new_kid);
  CHECK(json::parse(jose::verify_compact(minted, keys, only("ES256")).payload) == claims);
  CHECK_THROWS_AS(jose::verify_jwt(minted, keys, only("ES256"), {idp.origin, "ironhold"},
                                   std::chrono::system_clock::now()),
                  ironhold::Error);
}

TEST_CASE("the openssl tool verifies the issuer's ES256 and RS256 tokens with its published key",
          "[oidc]") {
  const std::string alg = GENERATE(as<std::string>{}, "ES256", "RS256");
  auto options = test_options();
  options.alg = alg;
  IssuerOnLoopback idp(options);
  const auto reply = post(idp.origin + "/token", {{"grant_type", "password"},
                                                  {"client_id", "ironhold"},
                                                  {"username", "dana"},
                                                  {"password", "dana-pass"}});
  REQUIRE(reply.status == 200);
  const std::string token = reply.doc()["id_token"];
  CHECK(header_of(token)["alg"] == alg);
  const json jwk = get(idp.origin + "/jwks").doc()["keys"][0];
  CHECK(jwk["kty"] == (alg == "RS256" ? "RSA" : "EC"));
  ironhold::test::TempDir dir("ironhold-oidc-test");
  CHECK(openssl_verifies(token, jwk, dir.path()));
  // A changed payload must not verify: the check above is not vacuous.
  std::string tampered = token;
  tampered[token.find('.') + 5] = tampered[token.find('.') + 5] == 'A' ? 'B' : 'A';
  CHECK_FALSE(openssl_verifies(tampered, jwk, dir.path()));
}

TEST_CASE("a key file is used as given, and one that does not fit the alg is refused", "[oidc]") {
  ironhold::test::TempDir dir("ironhold-oidc-test");
  const auto ec = ironhold::test::openssl_ec_signer(dir.path(), "ec", "P-256", "ES256", 32);
  auto options = test_options();
  options.key_file = ec.private_key;
  IssuerOnLoopback idp(options);
  const json published = idp.issuer.jwks()["keys"][0];
  CHECK(published["x"] == ec.jwk["x"]);
  CHECK(published["y"] == ec.jwk["y"]);

  const auto p384 = ironhold::test::openssl_ec_signer(dir.path(), "p384", "P-384", "ES384", 48);
  options.key_file = p384.private_key;
  boost::asio::io_context io;
  CHECK_THROWS_AS(oidc::OidcIssuer(io, options), ironhold::Error);
  options.alg = "RS256";
  options.key_file = ec.private_key;
  CHECK_THROWS_AS(oidc::OidcIssuer(io, options), ironhold::Error);
}

}  // namespace oidc_issuer_test

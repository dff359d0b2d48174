#include "sim/oidc/token_signer.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"

namespace ironhold::sim::oidc {

namespace {

using nlohmann::json;

// P-256 coordinates, and each of R and S in an ES256 signature (RFC 7518 section 3.4).
constexpr std::size_t kP256Size = 32;
constexpr int kMinRsaBits = 2048;

struct BioFree {
  void operator()(BIO* b) const noexcept { BIO_free(b); }
};
struct BnFree {
  void operator()(BIGNUM* b) const noexcept { BN_free(b); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
};
struct EcdsaSigFree {
  void operator()(ECDSA_SIG* s) const noexcept { ECDSA_SIG_free(s); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;

std::shared_ptr<EVP_PKEY> adopt(EVP_PKEY* key) {
  return std::shared_ptr<EVP_PKEY>(key, EVP_PKEY_free);
}

// OpenSSL's queue would otherwise surface in an unrelated caller's error later.
Error openssl_failure(const std::string& what) {
  ERR_clear_error();
  return Error(ErrorKind::internal, "OpenSSL failed to " + what);
}

std::string b64url(std::span<const std::uint8_t> bytes) {
  return crypto::base64url(bytes);
}

std::string b64url(std::string_view text) {
  return crypto::base64url(
      std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

Bn bn_param(EVP_PKEY* key, const char* name) {
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &raw) != 1) throw openssl_failure("read a key parameter");
  return Bn(raw);
}

std::vector<std::uint8_t> padded(const BIGNUM* n, std::size_t size) {
  std::vector<std::uint8_t> out(size);
  if (BN_bn2binpad(n, out.data(), static_cast<int>(size)) != static_cast<int>(size))
    throw openssl_failure("write a number of " + std::to_string(size) + " bytes");
  return out;
}

std::vector<std::uint8_t> minimal(const BIGNUM* n) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(BN_num_bytes(n)));
  BN_bn2bin(n, out.data());
  return out;
}

std::string group_of(EVP_PKEY* key) {
  std::array<char, 64> name{};
  std::size_t length = 0;
  if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, name.data(), name.size(),
                                     &length) != 1) {
    ERR_clear_error();
    return {};  // explicit curve parameters: no named group
  }
  return std::string(name.data(), length);
}

// The members RFC 7638 section 3.2 hashes, which json::dump writes as that section asks: sorted
// names, no whitespace.
json thumbprint_members(EVP_PKEY* key, const std::string& alg) {
  if (alg == "ES256") {
    const auto x = bn_param(key, OSSL_PKEY_PARAM_EC_PUB_X);
    const auto y = bn_param(key, OSSL_PKEY_PARAM_EC_PUB_Y);
    return {{"crv", "P-256"},
            {"kty", "EC"},
            {"x", b64url(padded(x.get(), kP256Size))},
            {"y", b64url(padded(y.get(), kP256Size))}};
  }
  const auto n = bn_param(key, OSSL_PKEY_PARAM_RSA_N);
  const auto e = bn_param(key, OSSL_PKEY_PARAM_RSA_E);
  return {{"e", b64url(minimal(e.get()))}, {"kty", "RSA"}, {"n", b64url(minimal(n.get()))}};
}

void check_alg(std::string_view alg) {
  if (alg != "ES256" && alg != "RS256")
    throw invalid(
        "the simulated issuer signs with ES256 or RS256, not \"" + std::string(alg) + "\"", "alg");
}

// A PEM passphrase callback that supplies none: an encrypted key fails to load instead of
// prompting on the simulator's terminal.
int no_passphrase(char*, int, int, void*) {
  return 0;
}

// JWS carries an ECDSA signature as R || S of the curve's size; OpenSSL produces DER.
std::vector<std::uint8_t> raw_ecdsa(const std::vector<std::uint8_t>& der) {
  const unsigned char* in = der.data();
  std::unique_ptr<ECDSA_SIG, EcdsaSigFree> sig(
      d2i_ECDSA_SIG(nullptr, &in, static_cast<long>(der.size())));
  if (!sig) throw openssl_failure("decode its own ECDSA signature");
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  auto out = padded(r, kP256Size);
  const auto s_bytes = padded(s, kP256Size);
  out.insert(out.end(), s_bytes.begin(), s_bytes.end());
  return out;
}

}  // namespace

TokenSigner::TokenSigner(std::shared_ptr<EVP_PKEY> key, std::string alg)
    : key_(std::move(key)), alg_(std::move(alg)) {
  json members = thumbprint_members(key_.get(), alg_);
  kid_ = b64url(crypto::sha256(members.dump()));
  jwk_ = std::move(members);
  jwk_["kid"] = kid_;
  jwk_["use"] = "sig";
  jwk_["alg"] = alg_;
}

TokenSigner TokenSigner::generate(std::string_view alg) {
  check_alg(alg);
  EVP_PKEY* raw = alg == "ES256" ? EVP_EC_gen("P-256") : EVP_RSA_gen(2048);
  if (!raw) throw openssl_failure("generate a signing key");
  return TokenSigner(adopt(raw), std::string(alg));
}

TokenSigner TokenSigner::load_pem(const std::filesystem::path& file, std::string_view alg) {
  check_alg(alg);
  const std::string name = file.string();
  std::unique_ptr<BIO, BioFree> bio(BIO_new_file(name.c_str(), "r"));
  if (!bio) {
    ERR_clear_error();
    throw invalid("cannot read the key file " + name, "key_file");
  }
  EVP_PKEY* raw = PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr);
  if (!raw) {
    ERR_clear_error();
    throw invalid(name + " holds no unencrypted PEM private key", "key_file");
  }
  auto key = adopt(raw);
  if (alg == "ES256") {
    if (!EVP_PKEY_is_a(key.get(), "EC") || group_of(key.get()) != "prime256v1")
      throw invalid(name + " is not an EC P-256 private key, which ES256 needs", "key_file");
  } else {
    if (!EVP_PKEY_is_a(key.get(), "RSA"))
      throw invalid(name + " is not an RSA private key, which RS256 needs", "key_file");
    if (EVP_PKEY_get_bits(key.get()) < kMinRsaBits)
      throw invalid(name + " holds a " + std::to_string(EVP_PKEY_get_bits(key.get())) +
                        "-bit RSA key; RS256 needs at least " + std::to_string(kMinRsaBits),
                    "key_file");
  }
  return TokenSigner(std::move(key), std::string(alg));
}

std::string TokenSigner::sign(const json& claims) const {
  const json header = {{"alg", alg_}, {"kid", kid_}, {"typ", "JWT"}};
  const std::string input = b64url(header.dump()) + "." + b64url(claims.dump());
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestSignInit_ex(ctx.get(), nullptr, "SHA256", nullptr, nullptr, key_.get(),
                                    nullptr) != 1)
    throw openssl_failure("start a signature");
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  std::size_t length = 0;
  if (EVP_DigestSign(ctx.get(), nullptr, &length, data, input.size()) != 1)
    throw openssl_failure("size a signature");
  std::vector<std::uint8_t> signature(length);
  if (EVP_DigestSign(ctx.get(), signature.data(), &length, data, input.size()) != 1)
    throw openssl_failure("sign a token");
  signature.resize(length);
  if (alg_ == "ES256") signature = raw_ecdsa(signature);
  return input + "." + b64url(signature);
}

}  // namespace ironhold::sim::oidc

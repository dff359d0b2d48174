#include "inventory/crypto/jose/jwk.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <array>
#include <cstdint>

#include "inventory/crypto/jose/algorithms.hpp"
#include "inventory/crypto/jose/untrusted.hpp"
#include "inventory/error.hpp"

namespace ironhold::crypto::jose {

void PublicKey::Free::operator()(EVP_PKEY* key) const noexcept {
  EVP_PKEY_free(key);
}

PublicKey::PublicKey(const PublicKey& other) {
  if (other.key_ && EVP_PKEY_up_ref(other.key_.get()) == 1) key_.reset(other.key_.get());
}

PublicKey& PublicKey::operator=(const PublicKey& other) {
  if (this != &other) *this = PublicKey(other);
  return *this;
}

namespace jwk_detail {

using nlohmann::json;

// 2048 bits is NIST SP 800-131A's floor. The ceiling is there because verifying costs grow with
// the modulus: a key set must not be able to make every login slow.
constexpr int min_rsa_bits = 2048;
constexpr int max_rsa_bits = 16384;

struct BnFree {
  void operator()(BIGNUM* b) const noexcept { BN_free(b); }
};
struct BuilderFree {
  void operator()(OSSL_PARAM_BLD* b) const noexcept { OSSL_PARAM_BLD_free(b); }
};
struct ParamsFree {
  void operator()(OSSL_PARAM* p) const noexcept { OSSL_PARAM_free(p); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* c) const noexcept { EVP_PKEY_CTX_free(c); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;
using Builder = std::unique_ptr<OSSL_PARAM_BLD, BuilderFree>;
using Params = std::unique_ptr<OSSL_PARAM, ParamsFree>;
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;

// "JWK 'kid'" or "JWK without a kid", to begin each message with the key it is about.
std::string name_of(const json& jwk) {
  const auto kid = jwk.find("kid");
  if (kid != jwk.end() && kid->is_string())
    return "JWK " + detail::quote_value(kid->get<std::string>());
  return "JWK without a kid";
}

Error refuse(const json& jwk, const std::string& why, std::string field = {}) {
  return ironhold::invalid(name_of(jwk) + " " + why, std::move(field));
}

// An optional string member; empty when absent.
std::string text_member(const json& jwk, const char* name) {
  const auto it = jwk.find(name);
  if (it == jwk.end()) return {};
  if (!it->is_string()) throw refuse(jwk, std::string("has a non-string \"") + name + "\"", name);
  return it->get<std::string>();
}

std::vector<std::uint8_t> bytes_member(const json& jwk, const char* name) {
  const auto it = jwk.find(name);
  if (it == jwk.end()) throw refuse(jwk, std::string("has no \"") + name + "\"", name);
  std::vector<std::uint8_t> bytes;
  if (!it->is_string() || !detail::decode_base64url(it->get_ref<const std::string&>(), bytes))
    throw refuse(jwk, std::string("has a \"") + name + "\" that is not base64url", name);
  if (bytes.empty()) throw refuse(jwk, std::string("has an empty \"") + name + "\"", name);
  return bytes;
}

Error openssl_failure(const char* what) {
  return Error(ErrorKind::internal, std::string("OpenSSL failed to ") + what);
}

PublicKey from_params(const json& jwk, const char* type, const OSSL_PARAM* params) {
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  if (!ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1) throw openssl_failure("set up a key import");
  EVP_PKEY* raw = nullptr;
  if (EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, const_cast<OSSL_PARAM*>(params)) !=
      1) {
    ERR_clear_error();  // the message says it all; the queue would only mislead a later caller
    throw refuse(jwk, "is not a valid public key (OpenSSL cannot import it)");
  }
  PublicKey key(raw);
  // For EC this checks that the point is on the curve and in the prime-order group, so that an
  // invalid-curve point cannot be slipped in; for RSA, SP 800-56B's checks of the modulus and of
  // the exponent (odd, above 2^16).
  PkeyCtx check(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
  if (!check) throw openssl_failure("set up a key check");
  if (EVP_PKEY_public_check(check.get()) != 1) {
    ERR_clear_error();
    throw refuse(jwk,
                 "fails OpenSSL's public key check (a point off its curve, or an RSA modulus "
                 "or exponent out of range)");
  }
  return key;
}

void import_rsa(const json& jwk, Jwk& out) {
  const auto n_bytes = bytes_member(jwk, "n");
  const auto e_bytes = bytes_member(jwk, "e");
  if (n_bytes.size() > max_rsa_bits / 8 + 1 || e_bytes.size() > 32)
    throw refuse(jwk, "has an RSA modulus or exponent longer than Ironhold accepts (" +
                          std::to_string(max_rsa_bits) + " bits)");
  Bn n(BN_bin2bn(n_bytes.data(), static_cast<int>(n_bytes.size()), nullptr));
  Bn e(BN_bin2bn(e_bytes.data(), static_cast<int>(e_bytes.size()), nullptr));
  if (!n || !e) throw openssl_failure("read an RSA key");
  out.bits = BN_num_bits(n.get());
  if (out.bits < min_rsa_bits)
    throw refuse(jwk,
                 "has a " + std::to_string(out.bits) + "-bit RSA modulus; at least " +
                     std::to_string(min_rsa_bits) + " bits are required",
                 "n");
  if (out.bits > max_rsa_bits)
    throw refuse(jwk,
                 "has a " + std::to_string(out.bits) + "-bit RSA modulus; at most " +
                     std::to_string(max_rsa_bits) + " bits are accepted",
                 "n");
  Builder builder(OSSL_PARAM_BLD_new());
  if (!builder || OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_N, n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_E, e.get()) != 1)
    throw openssl_failure("build RSA key parameters");
  Params params(OSSL_PARAM_BLD_to_param(builder.get()));
  if (!params) throw openssl_failure("build RSA key parameters");
  out.key = from_params(jwk, "RSA", params.get());
}

void import_ec(const json& jwk, Jwk& out) {
  out.crv = text_member(jwk, "crv");
  if (out.crv.empty()) throw refuse(jwk, "has no \"crv\"", "crv");
  const Curve* curve = find_curve(out.crv);
  if (!curve)
    throw refuse(jwk,
                 "is on curve " + detail::quote_value(out.crv) +
                     "; Ironhold verifies EC keys on P-256, P-384 and P-521 only",
                 "crv");
  const auto x = bytes_member(jwk, "x");
  const auto y = bytes_member(jwk, "y");
  // RFC 7518 section 6.2.1.2: each coordinate is the full size of the curve's field, even with
  // leading zero bytes.
  const auto check_size = [&](const char* name, const std::vector<std::uint8_t>& bytes) {
    if (bytes.size() != curve->coordinate_size)
      throw refuse(jwk,
                   std::string("has a \"") + name + "\" of " + std::to_string(bytes.size()) +
                       " bytes; " + out.crv + " coordinates are " +
                       std::to_string(curve->coordinate_size),
                   name);
  };
  check_size("x", x);
  check_size("y", y);
  // The uncompressed point of SEC 1: 0x04 || x || y.
  std::vector<std::uint8_t> point{0x04};
  point.insert(point.end(), x.begin(), x.end());
  point.insert(point.end(), y.begin(), y.end());
  Builder builder(OSSL_PARAM_BLD_new());
  if (!builder ||
      OSSL_PARAM_BLD_push_utf8_string(builder.get(), OSSL_PKEY_PARAM_GROUP_NAME, curve->group, 0) !=
          1 ||
      OSSL_PARAM_BLD_push_octet_string(builder.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) != 1)
    throw openssl_failure("build EC key parameters");
  Params params(OSSL_PARAM_BLD_to_param(builder.get()));
  if (!params) throw openssl_failure("build EC key parameters");
  out.key = from_params(jwk, "EC", params.get());
  out.bits = EVP_PKEY_get_bits(out.key.get());
}

// Members that only a private or a symmetric key has (RFC 7518 sections 6.3.2 and 6.4.1).
constexpr std::array<const char*, 8> private_members{"d", "p", "q", "dp", "dq", "qi", "oth", "k"};

void check_purpose(const json& jwk, const Jwk& out) {
  if (!out.use.empty() && out.use != "sig")
    throw refuse(jwk, "is for \"use\": " + detail::quote_value(out.use) + ", not for signatures",
                 "use");
  if (const auto ops = jwk.find("key_ops"); ops != jwk.end()) {
    bool verify = false;
    if (!ops->is_array()) throw refuse(jwk, "has a \"key_ops\" that is not an array", "key_ops");
    for (const auto& op : *ops) verify = verify || op == "verify";
    if (!verify) throw refuse(jwk, "has \"key_ops\" without \"verify\"", "key_ops");
  }
  for (const char* member : private_members)
    if (jwk.contains(member))
      throw refuse(jwk,
                   std::string("carries the private member \"") + member +
                       "\": a published key must be public only, and this one has leaked",
                   member);
}

}  // namespace jwk_detail

bool Jwk::fits(std::string_view name) const {
  const Algorithm* a = find_algorithm(name);
  if (!a || !key) return false;
  if (!alg.empty() && alg != name) return false;
  if (kty == "RSA") return a->scheme != SignatureScheme::ecdsa;
  return kty == "EC" && a->scheme == SignatureScheme::ecdsa && a->curve->crv == crv;
}

std::string Jwk::describe() const {
  std::string text =
      kty == "RSA" ? "RSA " + std::to_string(bits) + "-bit key" : "EC " + crv + " key";
  text += kid.empty() ? " without a kid" : " " + detail::quote_value(kid);
  return alg.empty() ? text : text + " (for " + alg + " only)";
}

Jwk parse_jwk(const nlohmann::json& jwk) {
  using namespace jwk_detail;
  if (!jwk.is_object()) throw ironhold::invalid("a JWK must be a JSON object");
  Jwk out;
  out.kty = text_member(jwk, "kty");
  out.kid = text_member(jwk, "kid");
  out.alg = text_member(jwk, "alg");
  out.use = text_member(jwk, "use");
  if (out.kty == "oct")
    throw refuse(jwk,
                 "is a symmetric (\"oct\") key: Ironhold verifies public-key signatures only, "
                 "never HMAC",
                 "kty");
  if (out.kty != "RSA" && out.kty != "EC")
    throw refuse(jwk,
                 out.kty.empty() ? "has no \"kty\""
                                 : "has kty " + detail::quote_value(out.kty) +
                                       "; Ironhold verifies RSA and EC keys only",
                 "kty");
  check_purpose(jwk, out);
  if (!out.alg.empty() && !find_algorithm(out.alg))
    throw refuse(jwk,
                 "is for alg " + detail::quote_value(out.alg) + ", not one Ironhold verifies (" +
                     std::string(supported_algorithm_names()) + ")",
                 "alg");
  if (out.kty == "RSA")
    import_rsa(jwk, out);
  else
    import_ec(jwk, out);
  if (!out.alg.empty() && !out.fits(out.alg))
    throw refuse(jwk,
                 "is for alg " + out.alg + ", which its key type (" + out.kty + " " + out.crv +
                     ") cannot verify",
                 "alg");
  return out;
}

JwkSet JwkSet::parse(const nlohmann::json& document) {
  const auto keys = document.is_object() ? document.find("keys") : document.end();
  if (!document.is_object() || keys == document.end() || !keys->is_array())
    throw ironhold::invalid("a JWK Set must be a JSON object with a \"keys\" array", "keys");
  JwkSet set;
  for (std::size_t i = 0; i < keys->size(); ++i) {
    const auto& entry = (*keys)[i];
    try {
      set.keys_.push_back(parse_jwk(entry));
    } catch (const Error& e) {
      SkippedKey skipped{i, {}, e.what()};
      if (entry.is_object() && entry.contains("kid") && entry["kid"].is_string())
        skipped.kid = entry["kid"].get<std::string>();
      set.skipped_.push_back(std::move(skipped));
    }
  }
  return set;
}

const Jwk& JwkSet::find(std::optional<std::string_view> kid, std::string_view alg) const {
  const auto refuse = [](std::string why) {
    return Error(ErrorKind::unauthenticated, std::move(why));
  };
  const Jwk* chosen = nullptr;
  const Jwk* same_kid = nullptr;
  int candidates = 0;
  for (const Jwk& key : keys_) {
    if (kid && key.kid != *kid) continue;
    same_kid = &key;
    if (key.fits(alg)) {
      chosen = &key;
      ++candidates;
    }
  }
  const std::string token_alg = "a token signed with " + detail::quote_value(alg);
  if (candidates == 1) return *chosen;
  if (!kid) {
    if (candidates == 0) throw refuse("no key in the issuer's key set verifies " + token_alg);
    throw refuse("the token names no kid and " + std::to_string(candidates) +
                 " keys of the issuer's key set verify " + token_alg +
                 ": with several, a token must name its key");
  }
  const std::string named = "kid " + detail::quote_value(*kid);
  if (candidates > 1)
    throw refuse("the issuer's key set has " + std::to_string(candidates) + " keys with " + named +
                 " that verify " + token_alg + "; refusing to guess");
  if (same_kid)
    throw refuse("the token's " + named + " is the " + same_kid->describe() +
                 ", which does not verify " + token_alg);
  for (const SkippedKey& skipped : skipped_)
    if (skipped.kid == *kid)
      throw refuse("the key with the token's " + named + " was skipped: " + skipped.reason);
  throw refuse("the issuer's key set has no key with " + named +
               " (if the issuer rotated its keys, fetch its key set again)");
}

}  // namespace ironhold::crypto::jose

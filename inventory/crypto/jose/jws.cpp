#include "inventory/crypto/jose/jws.hpp"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>

#include "inventory/crypto/jose/algorithms.hpp"
#include "inventory/crypto/jose/untrusted.hpp"
#include "inventory/error.hpp"

namespace ironhold::crypto::jose {
namespace jws_detail {

Error refuse(std::string why) {
  return Error(ErrorKind::unauthenticated, std::move(why));
}

struct Compact {
  nlohmann::json header;
  const Algorithm* alg = nullptr;
  std::optional<std::string> kid;
  std::string_view signing_input;  // header.payload, as they came: what was signed
  std::string payload;
  std::vector<std::uint8_t> signature;
};

std::string list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + detail::quote_value(name);
  return out.empty() ? "none" : out;
}

// The header's alg, refused unless it is one Ironhold verifies and the caller allows.
const Algorithm* checked_alg(const nlohmann::json& header, const JwsOptions& options) {
  const auto it = header.find("alg");
  if (it == header.end()) throw refuse("the JWS header has no \"alg\"");
  if (!it->is_string()) throw refuse("the JWS header's \"alg\" is not a string");
  const std::string& name = it->get_ref<const std::string&>();
  if (name == "none") throw refuse("the token is unsigned (alg \"none\"); a signature is required");
  if (name.starts_with("HS"))
    throw refuse("the token is MACed with " + detail::quote_value(name) +
                 "; Ironhold accepts public-key signatures only, never a shared secret");
  const Algorithm* alg = find_algorithm(name);
  if (!alg)
    throw refuse("the token's alg " + detail::quote_value(name) +
                 " is not one Ironhold verifies (" + std::string(supported_algorithm_names()) +
                 ")");
  if (std::find(options.allowed_algs.begin(), options.allowed_algs.end(), name) ==
      options.allowed_algs.end())
    throw refuse("the token's alg " + detail::quote_value(name) +
                 " is not allowed here (allowed: " + list(options.allowed_algs) + ")");
  return alg;
}

void check_header(const nlohmann::json& header) {
  if (header.contains("crit"))
    throw refuse("the JWS header has \"crit\": it names extensions Ironhold does not understand");
  if (const auto b64 = header.find("b64"); b64 != header.end() && *b64 != true)
    throw refuse("the JWS header asks for an unencoded payload (\"b64\"), which is not accepted");
}

std::vector<std::uint8_t> decoded(std::string_view part, const char* name) {
  std::vector<std::uint8_t> bytes;
  if (!detail::decode_base64url(part, bytes))
    throw refuse(std::string("the JWS ") + name + " is not base64url (without padding)");
  if (bytes.empty()) throw refuse(std::string("the JWS ") + name + " is empty");
  return bytes;
}

Compact parse(std::string_view token, const JwsOptions& options) {
  if (token.empty()) throw refuse("the token is empty");
  if (token.size() > options.max_size)
    throw refuse("the token is " + std::to_string(token.size()) + " bytes; at most " +
                 std::to_string(options.max_size) + " are accepted");
  const auto dots = std::count(token.begin(), token.end(), '.');
  if (dots == 4) throw refuse("the token is encrypted (a JWE); a signed token (JWS) is expected");
  if (dots != 2)
    throw refuse("the token is not a compact JWS: it has " + std::to_string(dots + 1) +
                 " parts separated by '.', not 3");
  const auto first = token.find('.'), second = token.find('.', first + 1);
  Compact jws;
  jws.signing_input = token.substr(0, second);

  const auto header_bytes = decoded(token.substr(0, first), "header");
  std::string why;
  auto header = detail::parse_object(
      {reinterpret_cast<const char*>(header_bytes.data()), header_bytes.size()}, why);
  if (!header) throw refuse("the JWS header " + why);
  jws.header = std::move(*header);
  jws.alg = checked_alg(jws.header, options);
  check_header(jws.header);
  if (const auto kid = jws.header.find("kid"); kid != jws.header.end()) {
    if (!kid->is_string()) throw refuse("the JWS header's \"kid\" is not a string");
    jws.kid = kid->get<std::string>();
  }

  const auto payload = decoded(token.substr(first + 1, second - first - 1), "payload");
  jws.payload.assign(payload.begin(), payload.end());
  jws.signature = decoded(token.substr(second + 1), "signature");
  return jws;
}

struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
};
struct EcdsaSigFree {
  void operator()(ECDSA_SIG* s) const noexcept { ECDSA_SIG_free(s); }
};

// JWS carries an ECDSA signature as R || S, each the curve's size (RFC 7518 section 3.4); OpenSSL
// verifies the DER SEQUENCE of two INTEGERs of X9.62.
std::vector<std::uint8_t> ecdsa_der(const std::vector<std::uint8_t>& raw, const Algorithm& alg) {
  const std::size_t half = alg.curve->coordinate_size;
  if (raw.size() != 2 * half)
    throw refuse("the " + std::string(alg.name) + " signature is " + std::to_string(raw.size()) +
                 " bytes; it must be " + std::to_string(2 * half) + " (R and S of " +
                 std::to_string(half) + " bytes each)");
  std::unique_ptr<ECDSA_SIG, EcdsaSigFree> sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(raw.data(), static_cast<int>(half), nullptr);
  BIGNUM* s = BN_bin2bn(raw.data() + half, static_cast<int>(half), nullptr);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    throw Error(ErrorKind::internal, "OpenSSL failed to build an ECDSA signature");
  }
  const int size = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (size <= 0) throw Error(ErrorKind::internal, "OpenSSL failed to encode an ECDSA signature");
  std::vector<std::uint8_t> der(static_cast<std::size_t>(size));
  unsigned char* out = der.data();
  if (i2d_ECDSA_SIG(sig.get(), &out) != size)
    throw Error(ErrorKind::internal, "OpenSSL failed to encode an ECDSA signature");
  return der;
}

void verify_signature(const Compact& jws, const Jwk& key) {
  const Algorithm& alg = *jws.alg;
  if (!key.fits(alg.name))
    throw refuse("the token is signed with " + std::string(alg.name) + ", which the " +
                 key.describe() + " does not verify");
  std::vector<std::uint8_t> signature = jws.signature;
  if (alg.scheme == SignatureScheme::ecdsa) {
    signature = ecdsa_der(jws.signature, alg);
  } else if (const int size = EVP_PKEY_get_size(key.key.get());
             signature.size() != static_cast<std::size_t>(size)) {
    throw refuse("the " + std::string(alg.name) + " signature is " +
                 std::to_string(signature.size()) + " bytes; the " + key.describe() +
                 " makes signatures of " + std::to_string(size));
  }
  const EVP_MD* md = EVP_get_digestbyname(alg.digest);
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;  // owned by ctx
  if (!md || !ctx || EVP_DigestVerifyInit(ctx.get(), &pctx, md, nullptr, key.key.get()) != 1)
    throw Error(ErrorKind::internal, "OpenSSL failed to set up " + std::string(alg.name));
  if (alg.scheme == SignatureScheme::rsa_pss &&
      (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
       EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) != 1 ||
       EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, md) != 1))
    throw Error(ErrorKind::internal, "OpenSSL failed to set up " + std::string(alg.name));
  const int verified = EVP_DigestVerify(
      ctx.get(), signature.data(), signature.size(),
      reinterpret_cast<const unsigned char*>(jws.signing_input.data()), jws.signing_input.size());
  // A bad signature leaves OpenSSL's reasons on this thread's error queue; they say nothing the
  // message below does not, and would be misread by the next caller that looks at the queue.
  ERR_clear_error();
  if (verified != 1)
    throw refuse("the token's " + std::string(alg.name) + " signature does not verify with the " +
                 key.describe());
}

VerifiedJws result(Compact&& jws) {
  return {std::move(jws.header), std::move(jws.payload), std::string(jws.alg->name)};
}

}  // namespace jws_detail

bool is_supported_alg(std::string_view alg) {
  return find_algorithm(alg) != nullptr;
}

VerifiedJws verify_compact(std::string_view token, const Jwk& key, const JwsOptions& options) {
  auto jws = jws_detail::parse(token, options);
  jws_detail::verify_signature(jws, key);
  return jws_detail::result(std::move(jws));
}

VerifiedJws verify_compact(std::string_view token, const JwkSet& keys, const JwsOptions& options) {
  auto jws = jws_detail::parse(token, options);
  jws_detail::verify_signature(jws, keys.find(jws.kid, jws.alg->name));
  return jws_detail::result(std::move(jws));
}

}  // namespace ironhold::crypto::jose

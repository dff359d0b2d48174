#include "bmc/ipmi/crypto.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <memory>

#include "inventory/error.hpp"

namespace ironhold::bmc::ipmi {

namespace {

[[noreturn]] void openssl_failed(const char* what) {
  throw Error(ErrorKind::internal, std::string("OpenSSL failed: ") + what);
}

// Provider lookups (EVP_MAC_fetch, a digest or cipher by name) take locks and compare strings:
// they are done once. Each thread keeps one HMAC context per digest (the digest set once; only
// the key changes per use) and one cipher context, so a packet allocates no OpenSSL context.
EVP_MAC* hmac_algorithm() {
  static EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  return mac;
}

const EVP_CIPHER* aes_128_cbc() {
  static EVP_CIPHER* cipher = EVP_CIPHER_fetch(nullptr, "AES-128-CBC", nullptr);
  return cipher;
}

using MacContext = std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)>;
using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

MacContext new_hmac_context(Digest digest) {
  EVP_MAC* mac = hmac_algorithm();
  if (mac == nullptr) openssl_failed("HMAC unavailable");
  MacContext ctx(EVP_MAC_CTX_new(mac), &EVP_MAC_CTX_free);
  if (!ctx) openssl_failed("EVP_MAC_CTX_new");
  char name[] = "SHA1";
  char name256[] = "SHA256";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
                                       digest == Digest::sha1 ? name : name256, 0),
      OSSL_PARAM_construct_end()};
  if (EVP_MAC_CTX_set_params(ctx.get(), params) != 1) openssl_failed("EVP_MAC_CTX_set_params");
  return ctx;
}

EVP_MAC_CTX* hmac_context(Digest digest) {
  thread_local MacContext sha1 = new_hmac_context(Digest::sha1);
  thread_local MacContext sha256 = new_hmac_context(Digest::sha256);
  return digest == Digest::sha1 ? sha1.get() : sha256.get();
}

EVP_CIPHER_CTX* cipher_context() {
  thread_local CipherContext ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  if (!ctx) openssl_failed("EVP_CIPHER_CTX_new");
  return ctx.get();
}

}  // namespace

Bytes hmac(Digest digest, ByteView key, std::initializer_list<ByteView> parts) {
  EVP_MAC_CTX* ctx = hmac_context(digest);
  // An empty key (a user without a password) is legal in IPMI; OpenSSL wants a non-null pointer.
  static const std::uint8_t empty = 0;
  const std::uint8_t* key_data = key.empty() ? &empty : key.data();
  if (EVP_MAC_init(ctx, key_data, key.size(), nullptr) != 1) openssl_failed("EVP_MAC_init");
  for (const ByteView part : parts)
    if (!part.empty() && EVP_MAC_update(ctx, part.data(), part.size()) != 1)
      openssl_failed("EVP_MAC_update");
  Bytes out(EVP_MAX_MD_SIZE);
  std::size_t length = 0;
  if (EVP_MAC_final(ctx, out.data(), &length, out.size()) != 1) openssl_failed("EVP_MAC_final");
  out.resize(length);
  return out;
}

namespace {

Bytes aes_cbc_128(bool encrypt, ByteView key, ByteView iv, ByteView data) {
  if (key.size() < 16 || iv.size() != 16 || data.size() % 16 != 0)
    throw Error(ErrorKind::internal, "AES-CBC-128 needs a 16-byte key and IV and whole blocks");
  EVP_CIPHER_CTX* ctx = cipher_context();
  if (aes_128_cbc() == nullptr ||
      EVP_CipherInit_ex2(ctx, aes_128_cbc(), key.data(), iv.data(), encrypt ? 1 : 0, nullptr) !=
          1 ||
      EVP_CIPHER_CTX_set_padding(ctx, 0) != 1)
    openssl_failed("EVP_CipherInit_ex2");
  Bytes out(data.size() + 16);
  int written = 0;
  int tail = 0;
  if (EVP_CipherUpdate(ctx, out.data(), &written, data.data(), static_cast<int>(data.size())) !=
          1 ||
      EVP_CipherFinal_ex(ctx, out.data() + written, &tail) != 1)
    openssl_failed("EVP_CipherUpdate");
  out.resize(static_cast<std::size_t>(written + tail));
  return out;
}

}  // namespace

Bytes aes_cbc_128_encrypt(ByteView key, ByteView iv, ByteView data) {
  return aes_cbc_128(true, key, iv, data);
}

Bytes aes_cbc_128_decrypt(ByteView key, ByteView iv, ByteView data) {
  return aes_cbc_128(false, key, iv, data);
}

}  // namespace ironhold::bmc::ipmi

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

// EVP_MAC_fetch is a provider lookup: done once per digest, not per packet.
EVP_MAC* hmac_algorithm() {
  static EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  return mac;
}

}  // namespace

Bytes hmac(Digest digest, ByteView key, std::initializer_list<ByteView> parts) {
  EVP_MAC* mac = hmac_algorithm();
  if (mac == nullptr) openssl_failed("HMAC unavailable");
  std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)> ctx(EVP_MAC_CTX_new(mac),
                                                                &EVP_MAC_CTX_free);
  if (!ctx) openssl_failed("EVP_MAC_CTX_new");
  char name[] = "SHA1";
  char name256[] = "SHA256";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
                                       digest == Digest::sha1 ? name : name256, 0),
      OSSL_PARAM_construct_end()};
  // An empty key (a user without a password) is legal in IPMI; OpenSSL wants a non-null pointer.
  static const std::uint8_t empty = 0;
  const std::uint8_t* key_data = key.empty() ? &empty : key.data();
  if (EVP_MAC_init(ctx.get(), key_data, key.size(), params) != 1) openssl_failed("EVP_MAC_init");
  for (const ByteView part : parts)
    if (!part.empty() && EVP_MAC_update(ctx.get(), part.data(), part.size()) != 1)
      openssl_failed("EVP_MAC_update");
  Bytes out(EVP_MAX_MD_SIZE);
  std::size_t length = 0;
  if (EVP_MAC_final(ctx.get(), out.data(), &length, out.size()) != 1)
    openssl_failed("EVP_MAC_final");
  out.resize(length);
  return out;
}

namespace {

Bytes aes_cbc_128(bool encrypt, ByteView key, ByteView iv, ByteView data) {
  if (key.size() < 16 || iv.size() != 16 || data.size() % 16 != 0)
    throw Error(ErrorKind::internal, "AES-CBC-128 needs a 16-byte key and IV and whole blocks");
  std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(),
                                                                      &EVP_CIPHER_CTX_free);
  if (!ctx ||
      EVP_CipherInit_ex(ctx.get(), EVP_aes_128_cbc(), nullptr, key.data(), iv.data(),
                        encrypt ? 1 : 0) != 1 ||
      EVP_CIPHER_CTX_set_padding(ctx.get(), 0) != 1)
    openssl_failed("EVP_CipherInit_ex");
  Bytes out(data.size() + 16);
  int written = 0;
  int tail = 0;
  if (EVP_CipherUpdate(ctx.get(), out.data(), &written, data.data(),
                       static_cast<int>(data.size())) != 1 ||
      EVP_CipherFinal_ex(ctx.get(), out.data() + written, &tail) != 1)
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

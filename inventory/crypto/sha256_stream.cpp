#include "inventory/crypto/sha256_stream.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "inventory/error.hpp"

namespace ironhold::crypto {

void Sha256Stream::Free::operator()(evp_md_ctx_st* ctx) const {
  EVP_MD_CTX_free(ctx);
}

Sha256Stream::Sha256Stream() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
    throw Error(ErrorKind::internal, "SHA-256 could not be started");
}

Sha256Stream::~Sha256Stream() = default;

void Sha256Stream::update(std::string_view piece) {
  if (EVP_DigestUpdate(ctx_.get(), piece.data(), piece.size()) != 1)
    throw Error(ErrorKind::internal, "SHA-256 failed");
}

std::array<std::uint8_t, 32> Sha256Stream::finish() {
  std::array<std::uint8_t, 32> digest{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx_.get(), digest.data(), &length) != 1)
    throw Error(ErrorKind::internal, "SHA-256 failed");
  return digest;
}

std::array<std::uint8_t, 32> hmac_sha256(std::string_view key, std::string_view message) {
  std::array<std::uint8_t, 32> mac{};
  unsigned int length = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac.data(),
            &length))
    throw Error(ErrorKind::internal, "HMAC-SHA256 failed");
  return mac;
}

}  // namespace ironhold::crypto

#include "cloudapi/bcc/admin_password.hpp"

#include <openssl/evp.h>

#include <memory>
#include <vector>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"

namespace ironhold::cloudapi::bcc {
namespace {

constexpr std::size_t kKeyBytes = 16;
constexpr std::size_t kBlock = 16;

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Runs AES-128-ECB over `in` with OpenSSL's PKCS#7 padding; nullopt when OpenSSL refuses
// (on decryption: bad padding).
std::optional<std::string> aes_128_ecb(bool encrypt, std::string_view key, const unsigned char* in,
                                       std::size_t size) {
  CipherContext ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  if (!ctx) return std::nullopt;
  const auto* k = reinterpret_cast<const unsigned char*>(key.data());
  if (EVP_CipherInit_ex(ctx.get(), EVP_aes_128_ecb(), nullptr, k, nullptr, encrypt ? 1 : 0) != 1)
    return std::nullopt;
  std::vector<unsigned char> out(size + kBlock);
  int written = 0;
  int last = 0;
  if (EVP_CipherUpdate(ctx.get(), out.data(), &written, in, static_cast<int>(size)) != 1)
    return std::nullopt;
  if (EVP_CipherFinal_ex(ctx.get(), out.data() + written, &last) != 1) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(out.data()),
                     static_cast<std::size_t>(written + last));
}

}  // namespace

std::string encrypt_admin_password(std::string_view secret_key, std::string_view password) {
  if (secret_key.size() < kKeyBytes)
    throw invalid("the secret key is shorter than the 16 bytes that encrypt the admin password",
                  "credentials.secret_key");
  const auto cipher =
      aes_128_ecb(true, secret_key.substr(0, kKeyBytes),
                  reinterpret_cast<const unsigned char*>(password.data()), password.size());
  if (!cipher) throw Error(ErrorKind::internal, "AES-128-ECB encryption failed");
  return crypto::to_hex(std::span<const std::uint8_t>(
      reinterpret_cast<const std::uint8_t*>(cipher->data()), cipher->size()));
}

std::optional<std::string> decrypt_admin_password(std::string_view secret_key,
                                                  std::string_view hex) {
  if (secret_key.size() < kKeyBytes || hex.empty() || hex.size() % (2 * kBlock) != 0)
    return std::nullopt;
  std::vector<unsigned char> bytes;
  bytes.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = hex_digit(hex[i]);
    const int low = hex_digit(hex[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    bytes.push_back(static_cast<unsigned char>(high * 16 + low));
  }
  return aes_128_ecb(false, secret_key.substr(0, kKeyBytes), bytes.data(), bytes.size());
}

}  // namespace ironhold::cloudapi::bcc

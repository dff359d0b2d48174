#include "inventory/crypto/url_signer.hpp"

#include <openssl/crypto.h>

#include <charconv>

#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/sha256_stream.hpp"

namespace ironhold::crypto {

namespace {

std::string_view as_text(const Key& key) {
  return {reinterpret_cast<const char*>(key.data()), key.size()};
}

}  // namespace

// A key of its own for URLs: a leaked URL key must not be the key that seals credentials.
UrlSigner::UrlSigner(const Key& master_key)
    : key_(hmac_sha256(as_text(master_key), "ironhold signed URLs v1")) {}

std::string UrlSigner::signature(std::string_view path, std::string_view expires) const {
  const std::string message = std::string(path) + "\n" + std::string(expires);
  return to_hex(hmac_sha256(as_text(key_), message));
}

std::string UrlSigner::query_for(std::string_view path,
                                 std::chrono::system_clock::time_point expires) const {
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(expires.time_since_epoch()).count();
  const std::string text = std::to_string(seconds);
  return "?expires=" + text + "&signature=" + signature(path, text);
}

bool UrlSigner::valid(std::string_view path, std::string_view expires, std::string_view sig,
                      std::chrono::system_clock::time_point now) const {
  long long seconds = 0;
  const auto [end, ec] = std::from_chars(expires.data(), expires.data() + expires.size(), seconds);
  if (ec != std::errc{} || end != expires.data() + expires.size()) return false;
  const std::string expected = signature(path, expires);
  if (sig.size() != expected.size() ||
      CRYPTO_memcmp(sig.data(), expected.data(), expected.size()) != 0)
    return false;
  return std::chrono::system_clock::time_point(std::chrono::seconds(seconds)) > now;
}

}  // namespace ironhold::crypto

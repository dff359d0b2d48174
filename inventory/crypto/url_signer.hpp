#pragma once
// Signed, expiring URLs: how a BMC fetches a firmware image from Ironhold without an API token.
// The signature is HMAC-SHA256 over the path and the expiry, under a key derived from the master
// key (so every instance of one deployment signs and checks alike, and nothing about it is in the
// database).
#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "inventory/crypto/secret_box.hpp"

namespace ironhold::crypto {

class UrlSigner {
 public:
  explicit UrlSigner(const Key& master_key);

  // "?expires=<unix seconds>&signature=<hex>" for `path`, valid until `expires`.
  std::string query_for(std::string_view path, std::chrono::system_clock::time_point expires) const;
  // Whether `signature` (hex) signs `path` until `expires` (unix seconds), and that is not past.
  bool valid(std::string_view path, std::string_view expires, std::string_view signature,
             std::chrono::system_clock::time_point now) const;

 private:
  std::string signature(std::string_view path, std::string_view expires) const;
  std::array<std::uint8_t, 32> key_;
};

}  // namespace ironhold::crypto

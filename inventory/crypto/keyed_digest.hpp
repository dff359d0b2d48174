#pragma once
// A digest under a key of its own, derived from the master key for one purpose: what the
// database keeps to recognise a request again (an Idempotency-Key's request) without keeping
// anything a guess could be checked against offline. A plain SHA-256 of a request that carried a
// password would let anyone with the table try candidate passwords at SHA-256's speed.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "inventory/crypto/secret_box.hpp"

namespace ironhold::crypto {

class KeyedDigest {
 public:
  // `purpose` names the use ("ironhold idempotency v1"): each use gets a key of its own.
  KeyedDigest(const Key& master_key, std::string_view purpose);

  // HMAC-SHA256 of `message` under this digest's key, as 64 hex digits.
  std::string hex(std::string_view message) const;

 private:
  std::array<std::uint8_t, 32> key_;
};

}  // namespace ironhold::crypto

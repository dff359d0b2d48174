#include "inventory/crypto/keyed_digest.hpp"

#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/sha256_stream.hpp"

namespace ironhold::crypto {

KeyedDigest::KeyedDigest(const Key& master_key, std::string_view purpose)
    : key_(hmac_sha256({reinterpret_cast<const char*>(master_key.data()), master_key.size()},
                       purpose)) {}

std::string KeyedDigest::hex(std::string_view message) const {
  return to_hex(hmac_sha256({reinterpret_cast<const char*>(key_.data()), key_.size()}, message));
}

}  // namespace ironhold::crypto

#include "inventory/util/lease_owner.hpp"

#include <cstdint>

#include "inventory/crypto/primitives.hpp"

namespace ironhold {

std::string random_lease_owner() {
  std::uint8_t bytes[6];
  crypto::random_bytes(bytes);
  return "ironhold-" + crypto::to_hex(bytes);
}

}  // namespace ironhold

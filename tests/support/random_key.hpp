#pragma once
// A fresh random 256-bit key, for tests that seal or sign.
#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/secret_box.hpp"

namespace ironhold::test {

inline crypto::Key random_key() {
  crypto::Key key{};
  crypto::random_bytes(key);
  return key;
}

}  // namespace ironhold::test

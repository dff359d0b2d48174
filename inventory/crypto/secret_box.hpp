#pragma once
// Secrets at rest (BMC and cloud credentials) are sealed with AES-256-GCM under the master key.
// A sealed value is nonce (12 bytes) || ciphertext || tag (16 bytes); the additional authenticated
// data binds it to its row (the node id), so a sealed value copied onto another row does not open.
#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::crypto {

using Key = std::array<std::uint8_t, 32>;

class SecretBox {
 public:
  explicit SecretBox(const Key& key);

  // Names the key without revealing it (the first 16 hex digits of SHA-256 over a label and the
  // key), stored beside each sealed value so that key rotation knows what to re-seal.
  const std::string& key_id() const noexcept { return key_id_; }

  std::vector<std::uint8_t> seal(std::string_view plaintext, std::string_view aad) const;
  // Throws ironhold::Error when the value was tampered with or sealed under another key.
  std::string open(std::span<const std::uint8_t> sealed, std::string_view aad) const;

 private:
  Key key_;
  std::string key_id_;
};

// Reads a master key file: 64 hex digits (whitespace around them allowed). With `create`, a missing
// file is generated from the CSPRNG with mode 0600. Refuses a key file others may read.
Key load_master_key(const std::filesystem::path& file, bool create);

}  // namespace ironhold::crypto

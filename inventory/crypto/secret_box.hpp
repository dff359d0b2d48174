#pragma once
// Secrets at rest (BMC and cloud credentials) are sealed with AES-256-GCM under the master key.
// A sealed value is nonce (12 bytes) || ciphertext || tag (16 bytes); the additional authenticated
// data binds it to its row (the node id), so a sealed value copied onto another row does not open.
#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::crypto {

using Key = std::array<std::uint8_t, 32>;

// The keys of a deployment: the current one seals; earlier ones, kept during a rotation (see
// `ironhold keys rotate`), only open.
struct Keyring {
  Key current{};
  std::vector<Key> previous;
};

// Names a key without revealing it (the first 16 hex digits of SHA-256 over a label and the key),
// stored beside each sealed value so that key rotation knows what to re-seal.
std::string key_id_of(const Key& key);

class SecretBox {
 public:
  explicit SecretBox(const Key& key);
  explicit SecretBox(Keyring keys);
  ~SecretBox();
  SecretBox(const SecretBox&) = delete;
  SecretBox& operator=(const SecretBox&) = delete;

  // Where newer keys come from (the master key file), for a rotation made while this process
  // runs: read by refresh(), and when a value opens under none of the keys held (at most once a
  // second).
  void set_source(std::function<std::optional<Keyring>()> source);
  // Reads the keys from the source now; true when they changed.
  bool refresh() const;

  // The current key's id.
  std::string key_id() const;

  std::vector<std::uint8_t> seal(std::string_view plaintext, std::string_view aad) const;
  // Throws ironhold::Error when the value was tampered with or sealed under none of the keys.
  std::string open(std::span<const std::uint8_t> sealed, std::string_view aad) const;

 private:
  struct State;
  void install(Keyring keys) const;
  std::shared_ptr<const State> state() const;

  mutable std::mutex mutex_;  // guards the pointer, never held while a value is sealed or opened
  mutable std::shared_ptr<const State> state_;  // replaced whole by a refresh
  std::function<std::optional<Keyring>()> source_;
  mutable std::chrono::steady_clock::time_point last_refresh_{};
};

// Reads a master key file: 64 hex digits per line, the current key first, then the earlier ones a
// rotation in progress still needs. With `create`, a missing file is generated from the CSPRNG
// with mode 0600. Refuses a key file others may read.
Keyring load_master_keyring(const std::filesystem::path& file, bool create);
Key load_master_key(const std::filesystem::path& file, bool create);  // the current key
// Replaces the file at once (a new file, then rename), mode 0600.
void write_master_keyring(const std::filesystem::path& file, const Keyring& keys);
// The same for any 256-bit key file; `what` and `flag` name it in errors ("audit key",
// "--audit-key-file").
Key load_key_file(const std::filesystem::path& file, bool create, std::string_view what,
                  std::string_view flag);

}  // namespace ironhold::crypto

#include "bmc/redfish/ssh_keys.hpp"

#include <mutex>

namespace ironhold::bmc::redfish {

std::string ssh_key_fingerprint(const ssh_key key) {
  unsigned char* hash = nullptr;
  size_t length = 0;
  if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &length) != SSH_OK) return {};
  char* text = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, length);
  ssh_clean_pubkey_hash(&hash);
  if (text == nullptr) return {};
  std::string out(text);
  ssh_string_free_char(text);
  return out;
}

void ensure_libssh_initialized() {
  static std::once_flag once;
  std::call_once(once, [] { ssh_init(); });
}

}  // namespace ironhold::bmc::redfish

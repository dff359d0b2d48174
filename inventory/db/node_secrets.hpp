#pragma once
// Internal to inventory/db/: opening a node's sealed credentials (node_credentials.sealed, as hex).
#include <string>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/node_store.hpp"

namespace ironhold::db {

// Throws Error(internal) when the stored value is corrupt or sealed under another key.
NodeSecrets open_node_secrets(const crypto::SecretBox& box, const std::string& node_id,
                              const char* sealed_hex);

}  // namespace ironhold::db

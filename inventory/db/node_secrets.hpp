#pragma once
// Internal to inventory/db/: opening a node's sealed credentials (node_credentials.sealed, as hex).
#include <pqxx/pqxx>
#include <string>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/node_store.hpp"

namespace ironhold::db {

// Throws Error(internal) when the stored value is corrupt or sealed under another key.
NodeSecrets open_node_secrets(const crypto::SecretBox& box, const std::string& node_id,
                              const char* sealed_hex);

// A node's secrets in the caller's transaction (node_store.cpp): read (none: empty), written
// sealed (none: removed).
NodeSecrets read_node_secrets(pqxx::work& tx, const crypto::SecretBox& box,
                              const std::string& node_id);
void write_node_secrets(pqxx::work& tx, const crypto::SecretBox& box, const std::string& node_id,
                        const NodeSecrets& secrets);

}  // namespace ironhold::db

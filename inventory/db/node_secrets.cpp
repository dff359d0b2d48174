#include "inventory/db/node_secrets.hpp"

#include <openssl/crypto.h>

#include <nlohmann/json.hpp>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"

namespace ironhold::db {

NodeSecrets open_node_secrets(const crypto::SecretBox& box, const std::string& node_id,
                              const char* sealed_hex) {
  NodeSecrets out;
  std::vector<std::uint8_t> sealed;
  if (!crypto::from_hex(sealed_hex, sealed))
    throw Error(ErrorKind::internal, "the stored credentials of node " + node_id + " are corrupt");
  std::string payload = box.open(sealed, node_id);
  const auto doc = nlohmann::json::parse(payload, nullptr, false);
  OPENSSL_cleanse(payload.data(), payload.size());
  if (doc.is_object()) {
    if (doc.contains("username") && doc.contains("password") && doc["username"].is_string() &&
        doc["password"].is_string())
      out.credentials =
          Credentials{doc["username"].get<std::string>(), doc["password"].get<std::string>()};
    if (doc.contains("kg") && doc["kg"].is_string()) out.kg = doc["kg"].get<std::string>();
  }
  return out;
}

}  // namespace ironhold::db

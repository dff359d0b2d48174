#pragma once
// API tokens: random secrets handed out once and stored only as their SHA-256 hash.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/db/database.hpp"
#include "inventory/model/enums.hpp"

namespace ironhold::db {

struct TokenInfo {
  std::string id;
  std::string name;
  Role role = Role::viewer;
  std::string prefix;  // the first characters of the token, to recognise it
  std::optional<std::string> created_by, created_at, expires_at, last_used_at, revoked_at;
};

struct CreatedToken {
  TokenInfo info;
  std::string secret;  // shown once, never stored
};

class TokenStore {
 public:
  explicit TokenStore(Database& db) : db_(db) {}

  // Throws Error(conflict) when an active token already has the name.
  CreatedToken create(const std::string& name, Role role, const std::string& created_by,
                      std::optional<std::string> expires_at = std::nullopt);
  // The token's record when the secret is valid, not revoked and not expired.
  std::optional<TokenInfo> authenticate(std::string_view secret);
  std::vector<TokenInfo> list(bool include_revoked);
  // By id or name; throws not_found.
  TokenInfo revoke(std::string_view id_or_name);

 private:
  Database& db_;
};

// The token format: "ih_" followed by 43 base64url characters (256 random bits).
std::string generate_token_secret();
bool looks_like_token(std::string_view secret);

}  // namespace ironhold::db

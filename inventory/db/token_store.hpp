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
  // A service token (no user) always has a role; a user's token may narrow the user's roles to
  // one (nullopt: the user's roles as they are at each request).
  std::optional<Role> role;
  // The one project it acts in; nullopt: every project its role (or user) covers.
  std::optional<std::string> project;
  std::optional<std::string> user_id, user_name;
  std::string prefix;  // the first characters of the token, to recognise it
  std::optional<std::string> created_by, created_at, expires_at, last_used_at, revoked_at;
};

struct CreatedToken {
  TokenInfo info;
  std::string secret;  // shown once, never stored
};

struct NewToken {
  std::string name;
  std::optional<Role> role;  // required without a user
  std::optional<std::string> project;
  std::optional<std::string> user;  // the owner's name or id; nullopt: a service token
  std::string created_by;
  std::optional<std::string> expires_at;  // RFC 3339
};

class TokenStore {
 public:
  explicit TokenStore(Database& db) : db_(db) {}

  // Throws Error(conflict) when an active token already has the name, not_found for an unknown
  // user or project, unprocessable for a service token without a role.
  CreatedToken create(const NewToken& spec);
  // A service token of every project with this role.
  CreatedToken create(const std::string& name, Role role, const std::string& created_by,
                      std::optional<std::string> expires_at = std::nullopt) {
    return create(NewToken{
        .name = name, .role = role, .created_by = created_by, .expires_at = std::move(expires_at)});
  }
  // The token's record when the secret is valid, not revoked and not expired.
  std::optional<TokenInfo> authenticate(std::string_view secret);
  // Every token, or (user given) the user's own.
  std::vector<TokenInfo> list(bool include_revoked,
                              const std::optional<std::string>& user_id = std::nullopt);
  std::optional<TokenInfo> get(std::string_view id_or_name);
  // By id or name; throws not_found.
  TokenInfo revoke(std::string_view id_or_name);

 private:
  Database& db_;
};

// The token format: "ih_" followed by 43 base64url characters (256 random bits).
std::string generate_token_secret();
bool looks_like_token(std::string_view secret);

}  // namespace ironhold::db

#pragma once
// People who sign in with a name and a password (migration 0015), and the roles they hold per
// project. Passwords are kept only as scrypt hashes that name their own parameters; a sign-in with
// a hash made under weaker parameters than today's re-hashes it.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/crypto/password_hash.hpp"
#include "inventory/db/database.hpp"
#include "inventory/model/access.hpp"

namespace ironhold::db {

struct UserInfo {
  std::string id;
  std::string name;
  std::vector<Grant> grants;
  std::optional<std::string> created_by, created_at, password_changed_at, last_sign_in_at;
};

class UserStore {
 public:
  explicit UserStore(Database& db, crypto::PasswordHashParams hashing = {})
      : db_(db), hashing_(hashing) {}

  // Throws conflict when the name is taken, unprocessable for a bad name or a weak password.
  UserInfo add(const std::string& name, std::string_view password, const std::string& created_by);
  // Sets a new password; the user's console sessions end (a changed password must lock out
  // whoever knew the old one). Throws not_found.
  UserInfo set_password(std::string_view name_or_id, std::string_view password);
  // Removes the user with their grants, tokens and sessions. Throws not_found.
  UserInfo remove(std::string_view name_or_id);
  std::optional<UserInfo> get(std::string_view name_or_id);
  std::vector<UserInfo> list();

  // Throws not_found for an unknown user or project; granting a held role again is a no-op.
  UserInfo grant(std::string_view name_or_id, const Grant& grant, const std::string& granted_by);
  // Throws not_found when the user does not hold it.
  UserInfo revoke(std::string_view name_or_id, const Grant& grant);
  std::vector<Grant> grants_of(const std::string& user_id);

  // The user, when `password` is theirs. Costs one password hash whether or not the name exists,
  // so that timing does not tell which names do.
  std::optional<UserInfo> check_password(std::string_view name, std::string_view password);

 private:
  Database& db_;
  crypto::PasswordHashParams hashing_;
};

// The API's (and the CLI's) form of a user and of a grant: never a password or its hash.
nlohmann::json to_json(const UserInfo& user);
nlohmann::json to_json(const Grant& grant);

// A password a person chose: 10 to 1024 characters (long pass phrases welcome, not so long that
// hashing one becomes a denial of service). Throws unprocessable naming the rule.
void check_new_password(std::string_view password);

}  // namespace ironhold::db

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
  std::string source = "local";            // "local", "ldap" or "oidc"
  std::optional<std::string> external_id;  // the directory's name for them (DN, issuer + subject)
};

// A person a directory vouched for: which directory, its stable name for them, and the user name
// they get here.
struct ExternalIdentity {
  std::string source;       // "ldap" or "oidc"
  std::string external_id;  // the entry's DN, or "<issuer> <subject>"
  std::string name;         // the user name here (the directory's uid, preferred_username, ...)
};

struct ExternalSignIn {
  UserInfo user;
  bool created = false;                       // their first sign-in
  std::vector<std::string> unknown_projects;  // mapped grants skipped: no such project
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

  // A local user of that name exists (whose password is kept here, never asked of a directory).
  bool is_local(std::string_view name);
  // The user a directory vouched for, made at their first sign-in, with the directory's grants
  // replaced by `grants` (hand-made grants stay). Throws conflict when the name is another
  // user's, forbidden when it is not a valid user name.
  ExternalSignIn sign_in_external(const ExternalIdentity& who, const std::vector<Grant>& grants);

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

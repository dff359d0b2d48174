#pragma once
// Who a person is, according to the directory they sign in with. An interface so that sign-in
// (web/auth) does not depend on how the directory is reached; LdapDirectory is the one
// implementation.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::web::auth {

struct DirectoryUser {
  std::string dn;                   // the user's entry
  std::string username;             // as the directory spells it (username_attribute)
  std::string display_name, email;  // empty when the entry has none
  std::vector<std::string> groups;  // group DNs (normalized: as the server returned them)
};

class Directory {
 public:
  virtual ~Directory() = default;
  // The user when the password is theirs; nullopt for an unknown user, a wrong password, or an
  // ambiguous name (two entries match). Throws Error(ErrorKind::unavailable, ...) when the
  // directory cannot be reached or refuses the service account, saying which. Blocks for up to
  // a few network timeouts: call it off the network threads.
  virtual std::optional<DirectoryUser> authenticate(std::string_view username,
                                                    std::string_view password) = 0;
};

}  // namespace ironhold::web::auth

#pragma once
// Sign-in against an LDAP server or Active Directory with a simple bind, over LDAPS or StartTLS,
// through libldap's synchronous API. Every authenticate() opens its own connection and closes it
// before returning: a libldap handle is not shared between the threads of the blocking pool this
// runs on, and a sign-in is rare enough that a pool of connections would buy nothing.
//
// One sign-in is: connect (trying the configured URLs in order) and bind as the service account,
// search the user under user_base (exactly one entry must match), bind as that entry's DN with
// the password, and read the groups (the member_of_attribute of the entry, or a search under
// group_base after binding as the service account again).
#include <optional>
#include <string_view>

#include "web/auth/directory.hpp"
#include "web/auth/ldap_config.hpp"

namespace ironhold::web::auth {

class LdapDirectory : public Directory {
 public:
  explicit LdapDirectory(LdapConfig config);

  std::optional<DirectoryUser> authenticate(std::string_view username,
                                            std::string_view password) override;

  const LdapConfig& config() const noexcept { return config_; }

 private:
  LdapConfig config_;
};

}  // namespace ironhold::web::auth

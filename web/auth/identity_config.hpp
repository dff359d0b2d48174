#pragma once
// Where people sign in besides the local accounts: the identity configuration file
// (`ironhold serve --identity-config FILE`, JSON). Today an LDAP / Active Directory directory,
// with the mapping of its groups to roles here:
//
//   {"ldap": {"url": "ldaps://dc1.example.com:636", "ca_file": "/etc/ironhold/directory-ca.pem",
//             "bind_dn": "...", "bind_password_file": "...", "user_base": "...",
//             "group_base": "...",
//             "groups": [{"group": "cn=gpu-ops,ou=groups,dc=example,dc=com",
//                         "project": "research", "role": "operator"},
//                        {"group": "cn=fleet-admins,ou=groups,dc=example,dc=com",
//                         "project": null, "role": "admin"}]}}
//
// and/or an OpenID Connect provider ("oidc", web/auth/oidc_config.hpp), whose token claim values
// map to roles the same way ("roles": [{"value": "gpu-ops", "project": "research",
// "role": "operator"}]).
//
// A person in none of the groups may sign in but gets no project. Local users (with a password
// kept here) stay for break-glass: their name is never sent to the directory.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/model/role_mapping.hpp"
#include "web/auth/ldap_config.hpp"
#include "web/auth/oidc_config.hpp"

namespace ironhold::web::auth {

struct IdentityConfig {
  std::optional<LdapConfig> ldap;
  std::vector<RoleMapping> ldap_groups;
  std::optional<OidcConfig> oidc;
  std::vector<RoleMapping> oidc_roles;
};

// The configuration in `document`; throws Error(invalid) naming the field.
IdentityConfig parse_identity_config(const nlohmann::json& document);
// Reads and parses the file (at most 1 MiB); an unreadable file or bad JSON is Error(invalid)
// naming it.
IdentityConfig read_identity_config(const std::string& path);

}  // namespace ironhold::web::auth

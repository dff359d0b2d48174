#pragma once
// How a directory's groups (LDAP) or a token's claim values (OIDC) become roles here: a list of
// {value, project, role} kept in the identity configuration. A person gets the grants of every
// value they hold; one who holds none gets no grant, and so sees no project.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/model/access.hpp"

namespace ironhold {

struct RoleMapping {
  std::string value;                   // an LDAP group's DN, or a claim's value
  std::optional<std::string> project;  // nullopt: every project
  Role role = Role::viewer;
};

// [{"<value_key>": "...", "project": "research" | null, "role": "operator"}, ...]. `field` names
// the list in errors ("ldap.groups"). Throws Error(invalid) naming the entry and what is wrong.
std::vector<RoleMapping> parse_role_mappings(const nlohmann::json& list, const std::string& field,
                                             const char* value_key);

// The grants `values` earn. LDAP DNs compare without regard to case (as directories compare
// them); claim values exactly.
std::vector<Grant> grants_for(const std::vector<RoleMapping>& mappings,
                              const std::vector<std::string>& values, bool ignore_case);

}  // namespace ironhold

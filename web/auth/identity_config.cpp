#include "web/auth/identity_config.hpp"

#include <fstream>
#include <sstream>

#include "inventory/error.hpp"

namespace ironhold::web::auth {

IdentityConfig parse_identity_config(const nlohmann::json& document) {
  if (!document.is_object()) throw invalid("the identity configuration must be a JSON object");
  IdentityConfig out;
  for (const auto& [key, value] : document.items()) {
    if (key != "ldap" && key != "oidc")
      throw invalid("the identity configuration has an unknown key \"" + key +
                        "\" (this version knows \"ldap\" and \"oidc\")",
                    key);
    if (!value.is_object()) throw invalid(key + " must be an object", key);
    // The role mapping is read apart from the connection settings.
    const char* list_key = key == "ldap" ? "groups" : "roles";
    nlohmann::json settings = value;
    nlohmann::json mappings = nlohmann::json::array();
    if (settings.contains(list_key)) {
      mappings = settings[list_key];
      settings.erase(list_key);
    }
    if (key == "ldap") {
      out.ldap = parse_ldap_config(settings, "ldap");
      out.ldap_groups = parse_role_mappings(mappings, "ldap.groups", "group");
    } else {
      out.oidc = parse_oidc_config(settings, "oidc");
      out.oidc_roles = parse_role_mappings(mappings, "oidc.roles", "value");
    }
  }
  return out;
}

IdentityConfig read_identity_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw invalid("cannot read the identity configuration " + path);
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > (1u << 20))
    throw invalid("the identity configuration " + path + " is larger than 1 MiB");
  const auto document = nlohmann::json::parse(text.str(), nullptr, false);
  if (document.is_discarded())
    throw invalid("the identity configuration " + path + " is not valid JSON");
  try {
    return parse_identity_config(document);
  } catch (const Error& e) {
    throw Error(e.kind(), path + ": " + e.what(), e.field());
  }
}

}  // namespace ironhold::web::auth

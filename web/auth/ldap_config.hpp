#pragma once
// How Ironhold reaches the LDAP / Active Directory directory people sign in with, read from the
// "ldap" object of the configuration. Checked strictly when it is read (unknown keys, wrong types,
// malformed URLs, DNs and filters are errors naming the field), so that a mistake stops the
// service at startup instead of failing every sign-in later with a directory's terse answer.
//
//   {"url": "ldaps://dc1.example.com:636 ldaps://dc2.example.com:636",
//    "ca_file": "/etc/ironhold/directory-ca.pem",
//    "bind_dn": "cn=ironhold,ou=services,dc=example,dc=com",
//    "bind_password_file": "/etc/ironhold/ldap-password",
//    "user_base": "ou=people,dc=example,dc=com",
//    "group_base": "ou=groups,dc=example,dc=com"}
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::web::auth {

struct LdapConfig {
  // "ldaps://host:port" or "ldap://host:port", tried in this order until one answers.
  std::vector<std::string> urls;
  // StartTLS on ldap:// URLs. Required for them unless allow_plaintext, because a simple bind
  // sends the password as it is.
  bool start_tls = false;
  bool allow_plaintext = false;
  // The directory's CA certificates (PEM); empty: the system's trust store.
  std::string ca_file;
  // The service account that searches; both empty: anonymous search.
  std::string bind_dn;
  std::string bind_password;  // never logged, never in a message
  // Where bind_password was read from, when it came from a file (for describe()).
  std::string bind_password_file;
  std::string user_base;
  std::string user_filter = "(uid={username})";  // AD: "(sAMAccountName={username})"
  // Empty: no group search (groups come from member_of_attribute, or there are none).
  std::string group_base;
  std::string group_filter = "(|(member={dn})(uniqueMember={dn})(memberUid={username}))";
  // When set ("memberOf"), the groups are this attribute of the user's entry, not a search.
  std::string member_of_attribute;
  std::string username_attribute = "uid";
  std::string display_name_attribute = "cn";
  std::string email_attribute = "mail";
  std::chrono::seconds timeout{5};  // per network operation
};

// Reads the "ldap" object `ldap`; `where` names it in messages ("ldap.user_filter must contain
// {username}"). Throws Error(ErrorKind::invalid) with the field set. Reads bind_password_file
// (at most 4 KiB; one trailing newline is dropped) and checks that ca_file is readable.
LdapConfig parse_ldap_config(const nlohmann::json& ldap, const std::string& where = "ldap");

// Whether `url` is ldap:// (case aside), where TLS comes from StartTLS or not at all.
bool is_plain_ldap_url(std::string_view url);

// One line for logs: URLs, TLS mode, CA, service account, bases, filters. Never the password.
std::string describe(const LdapConfig& config);

}  // namespace ironhold::web::auth

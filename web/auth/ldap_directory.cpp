#include "web/auth/ldap_directory.hpp"

#include <ldap.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"
#include "inventory/util/log.hpp"
#include "web/auth/ldap_connection.hpp"
#include "web/auth/ldap_filter.hpp"

namespace ironhold::web::auth {
namespace ldap_directory_detail {

using util::concat;

// Two entries are enough to tell that a name is ambiguous.
constexpr int kUserSizeLimit = 2;
// Far past the groups of one person; a larger answer is a filter that matches too much.
constexpr int kGroupSizeLimit = 1000;

Error unavailable(std::string message) {
  return Error(ErrorKind::unavailable, std::move(message));
}

std::string service_account(const LdapConfig& config) {
  return config.bind_dn.empty() ? std::string("an anonymous bind")
                                : concat("the service account ", config.bind_dn);
}

Error refused_service_account(const LdapConfig& config, const LdapConnection& connection, int rc) {
  return unavailable(
      concat("the LDAP directory refused ", service_account(config), ": ", connection.explain(rc)));
}

// Binds `connection` as the service account again; a refusal is the configuration's fault (or
// the account's: expired, locked), never that of the person who signs in.
void bind_service(const LdapConfig& config, LdapConnection& connection) {
  const int rc = connection.bind(config.bind_dn, config.bind_password);
  if (rc == LDAP_SUCCESS) return;
  if (ldap_unreachable(rc))
    throw unavailable(concat("the LDAP directory cannot be reached: ", connection.explain(rc)));
  throw refused_service_account(config, connection, rc);
}

// A connection to the first URL that answers, bound as the service account. Only a server that
// cannot be reached sends us on to the next URL: what one replica refuses, the others would too.
std::unique_ptr<LdapConnection> connect_as_service(const LdapConfig& config) {
  std::string failures;
  for (const auto& url : config.urls) {
    auto connection = std::make_unique<LdapConnection>(config, url);
    int rc = connection->open();
    if (rc != LDAP_SUCCESS && !ldap_unreachable(rc))
      throw unavailable(concat("the LDAP directory refused StartTLS: ", connection->explain(rc)));
    if (rc == LDAP_SUCCESS) rc = connection->bind(config.bind_dn, config.bind_password);
    if (rc == LDAP_SUCCESS) return connection;
    if (!ldap_unreachable(rc)) throw refused_service_account(config, *connection, rc);
    failures += concat(failures.empty() ? "" : "; ", connection->explain(rc));
  }
  throw unavailable(concat("the LDAP directory cannot be reached: ", failures));
}

// The directory's spelling of the name: the value of username_attribute that matches what was
// typed (case aside; uid and sAMAccountName compare without case), else its first value, else
// what was typed (a user_filter on another attribute may match an entry without it).
std::string directory_username(const LdapEntry& entry, const LdapConfig& config,
                               std::string_view typed) {
  const auto& values = entry.values(config.username_attribute);
  const auto same = [typed](const std::string& v) {
    return std::equal(v.begin(), v.end(), typed.begin(), typed.end(), [](char a, char b) {
      return std::tolower(static_cast<unsigned char>(a)) ==
             std::tolower(static_cast<unsigned char>(b));
    });
  };
  if (const auto it = std::find_if(values.begin(), values.end(), same); it != values.end())
    return *it;
  return values.empty() ? std::string(typed) : values.front();
}

std::string first_value(const LdapEntry& entry, const std::string& attribute) {
  const auto& values = entry.values(attribute);
  return values.empty() ? std::string() : values.front();
}

// The DNs of the groups under group_base whose filter matches the user, searched as the service
// account (the user may not be allowed to read groups).
std::vector<std::string> search_groups(const LdapConfig& config, LdapConnection& connection,
                                       const DirectoryUser& user) {
  bind_service(config, connection);
  const std::string filter =
      fill_filter_template(config.group_filter, {{"dn", user.dn}, {"username", user.username}});
  auto found =
      connection.search(config.group_base, filter, {}, kGroupSizeLimit, "searching for groups");
  if (found.truncated)
    log::warn("LDAP group search stopped at its size limit: the user's other groups are ignored",
              {{"url", connection.url()},
               {"user", user.dn},
               {"limit", kGroupSizeLimit},
               {"group_filter", config.group_filter}});
  std::vector<std::string> groups;
  groups.reserve(found.entries.size());
  for (auto& entry : found.entries) groups.push_back(std::move(entry.dn));
  return groups;
}

}  // namespace ldap_directory_detail

LdapDirectory::LdapDirectory(LdapConfig config) : config_(std::move(config)) {}

std::optional<DirectoryUser> LdapDirectory::authenticate(std::string_view username,
                                                         std::string_view password) {
  using namespace ldap_directory_detail;
  // A simple bind with a DN and an empty password is an "unauthenticated bind" (RFC 4513
  // §5.1.2), which many servers answer with success without checking anything.
  if (password.empty() || !acceptable_username(username)) return std::nullopt;

  const auto connection = connect_as_service(config_);
  std::vector<std::string> attributes = {config_.username_attribute, config_.display_name_attribute,
                                         config_.email_attribute};
  if (!config_.member_of_attribute.empty()) attributes.push_back(config_.member_of_attribute);
  auto found = connection->search(
      config_.user_base, fill_filter_template(config_.user_filter, {{"username", username}}),
      attributes, kUserSizeLimit, "searching for the user");
  // None, or more than one: never guess which person is meant.
  if (found.truncated || found.entries.size() != 1 || found.entries.front().dn.empty())
    return std::nullopt;
  const LdapEntry& entry = found.entries.front();

  // The password is checked by the directory, on the connection already open: a bind replaces
  // the connection's identity (RFC 4513 §5.1), so one TLS handshake serves the whole sign-in.
  switch (const int rc = connection->bind(entry.dn, password)) {
    case LDAP_SUCCESS:
      break;
    case LDAP_INVALID_CREDENTIALS:   // a wrong password (AD also: expired, disabled, locked)
    case LDAP_INAPPROPRIATE_AUTH:    // an entry without a password
    case LDAP_UNWILLING_TO_PERFORM:  // an account the server will not let in
      return std::nullopt;
    default:
      throw unavailable(concat("the LDAP directory could not check the password of ", entry.dn,
                               ": ", connection->explain(rc)));
  }

  DirectoryUser user;
  user.dn = entry.dn;
  user.username = directory_username(entry, config_, username);
  user.display_name = first_value(entry, config_.display_name_attribute);
  user.email = first_value(entry, config_.email_attribute);
  if (!config_.member_of_attribute.empty())
    user.groups = entry.values(config_.member_of_attribute);
  else if (!config_.group_base.empty())
    user.groups = search_groups(config_, *connection, user);
  return user;
}

}  // namespace ironhold::web::auth

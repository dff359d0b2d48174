#include "web/auth/ldap_config.hpp"

#include <ldap.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <string_view>

#include "inventory/error.hpp"
#include "inventory/model/json_fields.hpp"
#include "inventory/util/concat.hpp"
#include "web/auth/config_fields.hpp"
#include "web/auth/ldap_filter.hpp"

namespace ironhold::web::auth {
namespace ldap_config_detail {

using nlohmann::json;
using util::concat;

using Fields = ConfigFields;

constexpr std::size_t kMaxUrls = 16;

bool is_port(std::string_view digits) {
  if (digits.empty() || digits.size() > 5) return false;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  int port = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), port);
  return port >= 1 && port <= 65535;
}

bool is_host(std::string_view host) {
  if (host.empty()) return false;
  if (host.front() == '[')  // an IPv6 literal
    return host.size() > 2 && host.back() == ']' &&
           std::all_of(host.begin() + 1, host.end() - 1, [](char c) {
             return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
           });
  return std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
  });
}

// Whether `url` is "ldap[s]://host[:port][/]". A DN, attributes or a filter after the host (the
// rest of RFC 4516) would be ignored by the connection: refused instead.
bool valid_url(std::string_view url) {
  std::string lower(url);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view rest;
  if (lower.starts_with("ldaps://"))
    rest = url.substr(8);
  else if (lower.starts_with("ldap://"))
    rest = url.substr(7);
  else
    return false;
  if (rest.ends_with('/')) rest.remove_suffix(1);
  const auto bracket = rest.rfind(']');
  const auto colon = rest.rfind(':');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket))
    return is_host(rest.substr(0, colon)) && is_port(rest.substr(colon + 1));
  return is_host(rest);
}

std::vector<std::string> parse_urls(const Fields& fields) {
  const std::string text = fields.required_text("url");
  std::vector<std::string> urls;
  std::size_t start = 0;
  while ((start = text.find_first_not_of(' ', start)) != std::string::npos) {
    const std::size_t end = text.find(' ', start);
    const std::string url = text.substr(start, end - start);
    if (!valid_url(url))
      throw fields.error("url", concat("has \"", url,
                                       "\", which is not ldaps://host:port or ldap://host:port "
                                       "(several URLs are separated by spaces)"));
    urls.push_back(url);
    start = end;
  }
  if (urls.empty()) throw fields.error("url", "holds no URL");
  if (urls.size() > kMaxUrls)
    throw fields.error("url", concat("has more than ", std::to_string(kMaxUrls), " URLs"));
  return urls;
}

// libldap's own DN parser decides: the server would refuse what it refuses.
void check_dn(const Fields& fields, std::string_view key, const std::string& dn) {
  LDAPDN parsed = nullptr;
  const int rc = ldap_str2dn(dn.c_str(), &parsed, LDAP_DN_FORMAT_LDAPV3);
  if (parsed) ldap_dnfree(parsed);
  if (rc != LDAP_SUCCESS || dn.find('=') == std::string::npos)
    throw fields.error(key, "is not a DN (like ou=people,dc=example,dc=com)");
}

// An attribute type: a name (letters, digits, '-', starting with a letter) or a numeric OID.
void check_attribute(const Fields& fields, std::string_view key, const std::string& name) {
  const bool named = std::isalpha(static_cast<unsigned char>(name.front())) &&
                     std::all_of(name.begin(), name.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
                     });
  const bool oid = std::isdigit(static_cast<unsigned char>(name.front())) &&
                   std::isdigit(static_cast<unsigned char>(name.back())) &&
                   name.find("..") == std::string::npos &&
                   std::all_of(name.begin(), name.end(), [](char c) {
                     return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
                   });
  if (!named && !oid)
    throw fields.error(key, "is not an attribute name (letters, digits and '-', like memberOf)");
}

void check_filter(const Fields& fields, std::string_view key, const std::string& filter,
                  std::initializer_list<std::string_view> placeholders) {
  if (const std::string problem = filter_template_problem(filter, placeholders); !problem.empty())
    throw fields.error(key, problem);
}

void parse_transport(const Fields& fields, LdapConfig& config) {
  config.urls = parse_urls(fields);
  config.start_tls = fields.boolean("start_tls").value_or(false);
  config.allow_plaintext = fields.boolean("allow_plaintext").value_or(false);
  const bool any_plain = std::any_of(config.urls.begin(), config.urls.end(), is_plain_ldap_url);
  if (any_plain && !config.start_tls && !config.allow_plaintext)
    throw fields.error("start_tls",
                       "must be true for ldap:// URLs: without it, the passwords of everyone who "
                       "signs in cross the network in clear (use ldaps://, or set start_tls; "
                       "allow_plaintext: true allows clear text anyway)");
  if (const auto ca = fields.text("ca_file")) {
    fields.check_ca_file("ca_file", *ca);
    config.ca_file = *ca;
  }
}

void parse_service_account(const Fields& fields, LdapConfig& config) {
  const auto dn = fields.text("bind_dn");
  const auto password = fields.text("bind_password");
  const auto password_file = fields.text("bind_password_file");
  if (password && password_file)
    throw fields.error("bind_password", concat("and \"", fields.name("bind_password_file"),
                                               "\" are both set: keep one"));
  if (!dn) {
    if (password || password_file)
      throw fields.error(password ? "bind_password" : "bind_password_file",
                         concat("is set without \"", fields.name("bind_dn"),
                                "\" (leave both out to search anonymously)"));
    return;
  }
  // A DN with an empty password is an "unauthenticated bind" (RFC 4513 §5.1.2): many servers
  // accept it as anonymous, so the service account would silently not be used.
  if (!password && !password_file)
    throw fields.error("bind_dn", concat("needs \"", fields.name("bind_password"), "\" or \"",
                                         fields.name("bind_password_file"), "\""));
  check_dn(fields, "bind_dn", *dn);
  config.bind_dn = *dn;
  if (password) {
    config.bind_password = *password;
  } else {
    config.bind_password = fields.secret_file("bind_password_file", *password_file);
    config.bind_password_file = *password_file;
  }
}

void parse_searches(const Fields& fields, LdapConfig& config) {
  config.user_base = fields.required_text("user_base");
  check_dn(fields, "user_base", config.user_base);
  if (auto filter = fields.text("user_filter")) config.user_filter = std::move(*filter);
  check_filter(fields, "user_filter", config.user_filter, {"username"});
  if (!filter_uses(config.user_filter, "username"))
    throw fields.error("user_filter", "must contain {username}");

  const auto group_base = fields.text("group_base");
  const auto group_filter = fields.text("group_filter");
  const auto member_of = fields.text("member_of_attribute");
  if (group_base && member_of)
    throw fields.error("group_base", concat("and \"", fields.name("member_of_attribute"),
                                            "\" are both set: groups come from a search under "
                                            "group_base or from the user's attribute, not both"));
  if (group_filter && !group_base)
    throw fields.error("group_filter",
                       concat("is set without \"", fields.name("group_base"), "\""));
  if (group_base) {
    check_dn(fields, "group_base", *group_base);
    config.group_base = *group_base;
  }
  if (group_filter) config.group_filter = *group_filter;
  check_filter(fields, "group_filter", config.group_filter, {"dn", "username"});
  // Without the user in it, the filter would make everyone a member of every group it matches.
  if (!filter_uses(config.group_filter, "dn") && !filter_uses(config.group_filter, "username"))
    throw fields.error("group_filter", "must contain {dn} or {username}");
  if (member_of) {
    check_attribute(fields, "member_of_attribute", *member_of);
    config.member_of_attribute = *member_of;
  }
}

void parse_attributes(const Fields& fields, LdapConfig& config) {
  const std::pair<const char*, std::string*> attributes[] = {
      {"username_attribute", &config.username_attribute},
      {"display_name_attribute", &config.display_name_attribute},
      {"email_attribute", &config.email_attribute},
  };
  for (const auto& [key, target] : attributes) {
    if (auto value = fields.text(key)) {
      check_attribute(fields, key, *value);
      *target = std::move(*value);
    }
  }
}

}  // namespace ldap_config_detail

bool is_plain_ldap_url(std::string_view url) {
  constexpr std::string_view scheme = "ldap://";
  return url.size() >= scheme.size() &&
         std::equal(scheme.begin(), scheme.end(), url.begin(), [](char a, char b) {
           return a == std::tolower(static_cast<unsigned char>(b));
         });
}

LdapConfig parse_ldap_config(const nlohmann::json& ldap, const std::string& where) {
  using namespace ldap_config_detail;
  if (!ldap.is_object()) throw wrong_type(where, "an object", ldap);
  reject_unknown_keys(ldap,
                      {"url", "start_tls", "allow_plaintext", "ca_file", "bind_dn", "bind_password",
                       "bind_password_file", "user_base", "user_filter", "group_base",
                       "group_filter", "member_of_attribute", "username_attribute",
                       "display_name_attribute", "email_attribute", "timeout_s"},
                      where, ErrorKind::invalid);
  const Fields fields{ldap, where};
  LdapConfig config;
  parse_transport(fields, config);
  parse_service_account(fields, config);
  parse_searches(fields, config);
  parse_attributes(fields, config);
  config.timeout = fields.seconds("timeout_s", std::chrono::seconds(5), 1, 60);
  return config;
}

std::string describe(const LdapConfig& config) {
  using namespace ldap_config_detail;
  std::string urls;
  for (const auto& url : config.urls) urls += concat(urls.empty() ? "" : " ", url);
  const bool any_plain = std::any_of(config.urls.begin(), config.urls.end(), is_plain_ldap_url);
  const bool any_ldaps = !std::all_of(config.urls.begin(), config.urls.end(), is_plain_ldap_url);
  std::string tls = any_ldaps ? "LDAPS" : "";
  if (any_plain)
    tls += concat(any_ldaps ? ", " : "",
                  config.start_tls ? "StartTLS" : "NO TLS (passwords cross the network in clear)");
  const std::string ca = config.ca_file.empty() ? "the system's trust store" : config.ca_file;
  std::string account = "anonymous search";
  if (!config.bind_dn.empty())
    account = concat("search as ", config.bind_dn,
                     config.bind_password_file.empty()
                         ? std::string(" (password in the configuration)")
                         : concat(" (password from ", config.bind_password_file, ")"));
  std::string groups = "no groups";
  if (!config.member_of_attribute.empty())
    groups = concat("groups from the user's ", config.member_of_attribute);
  else if (!config.group_base.empty())
    groups = concat("groups under ", config.group_base, " matching ", config.group_filter);
  return concat("LDAP ", urls, " (", tls, ", CA: ", ca, "); ", account, "; users under ",
                config.user_base, " matching ", config.user_filter, " (", config.username_attribute,
                ", ", config.display_name_attribute, ", ", config.email_attribute, "); ", groups,
                "; timeout ", std::to_string(config.timeout.count()), " s");
}

}  // namespace ironhold::web::auth

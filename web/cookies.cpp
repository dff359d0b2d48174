#include "web/cookies.hpp"

#include "inventory/util/concat.hpp"

namespace ironhold::web {
namespace {

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<std::string_view> cookie_value(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const auto end = header.find(';');
    const std::string_view pair = trim_spaces(header.substr(0, end));
    header = end == std::string_view::npos ? std::string_view() : header.substr(end + 1);
    const auto eq = pair.find('=');
    if (eq == std::string_view::npos || trim_spaces(pair.substr(0, eq)) != name) continue;
    std::string_view value = trim_spaces(pair.substr(eq + 1));
    // A value may be quoted (cookie-value = *cookie-octet / DQUOTE *cookie-octet DQUOTE).
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    return value;
  }
  return std::nullopt;
}

std::string session_set_cookie(std::string_view value, std::chrono::seconds lifetime, bool secure) {
  return util::concat(kSessionCookie, "=", value,
                      "; Path=/; Max-Age=", std::to_string(lifetime.count()),
                      "; HttpOnly; SameSite=Strict", secure ? "; Secure" : "");
}

std::string oidc_state_set_cookie(std::string_view value, std::chrono::seconds lifetime,
                                  bool secure) {
  return util::concat(kOidcStateCookie, "=", value,
                      "; Path=/api/v1/session/oidc; Max-Age=", std::to_string(lifetime.count()),
                      "; HttpOnly; SameSite=Lax", secure ? "; Secure" : "");
}

}  // namespace ironhold::web

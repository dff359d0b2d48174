#pragma once
// Reading one object of the identity configuration (web/auth/identity_config.hpp) strictly: a
// wrong type, an empty or overlong string, a control character pasted with a value, an unreadable
// secret or CA file is an Error(invalid) naming the field ("ldap.bind_dn", "oidc.issuer"), so
// that a mistake stops the service at startup instead of failing every sign-in later.
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "inventory/error.hpp"

namespace ironhold::web::auth {

struct ConfigFields {
  const nlohmann::json& object;
  const std::string& where;  // the object's own name: "ldap", "oidc"

  std::string name(std::string_view key) const;
  Error error(std::string_view key, std::string_view problem) const;

  // The string at `key`; nullopt when absent or null. Empty, longer than 4 KiB or with control
  // characters is an error: no setting is any of that.
  std::optional<std::string> text(std::string_view key) const;
  std::string required_text(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  // Whole seconds from `min` to `max`; `fallback` when absent.
  std::chrono::seconds seconds(std::string_view key, std::chrono::seconds fallback, long long min,
                               long long max) const;

  // The content of the file a setting names (at most `limit` bytes), or an error naming the
  // setting, the file and why.
  std::string file(std::string_view key, const std::string& path, std::size_t limit) const;
  // A secret kept in a file of its own (a password, a client secret): one trailing newline, as
  // editors and `echo` leave it, is not part of it; an empty file is an error.
  std::string secret_file(std::string_view key, const std::string& path) const;
  // A file of PEM certificates (a CA to trust).
  void check_ca_file(std::string_view key, const std::string& path) const;
};

}  // namespace ironhold::web::auth

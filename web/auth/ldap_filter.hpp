#pragma once
// Search filters built from what a person typed at sign-in. A username goes into a filter only
// through escape_filter_value: unescaped, "*" would match every entry and "x)(uid=*" would rewrite
// the filter (LDAP injection). Filter templates come from the configuration ("(uid={username})")
// and are checked once, when it is parsed, so that a typo is a startup error, not a failed sign-in.
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace ironhold::web::auth {

// Longest username accepted at sign-in; directories cap theirs far below (AD: 20 characters for
// sAMAccountName, 256 for a userPrincipalName).
inline constexpr std::size_t kMaxUsernameBytes = 256;

// Whether `username` may be looked up at all: 1 to kMaxUsernameBytes bytes of valid UTF-8 without
// control characters. Anything else cannot be a directory name and is refused before a network
// round trip (a NUL would end the string in the C library).
bool acceptable_username(std::string_view username);

// RFC 4515 §3: the value with '*', '(', ')', '\' and NUL written as \2a \28 \29 \5c \00, so that
// it is compared as literal text. Other bytes, UTF-8 included, pass unchanged.
std::string escape_filter_value(std::string_view value);

// What is wrong with the filter template `filter`, or empty when nothing is: it must be one
// parenthesized filter with balanced parentheses, every '\' must start an escape of two hex
// digits, and every "{name}" must be one of `placeholders` (names without braces: "username").
// Not a full RFC 4515 parse: the server reports anything subtler.
std::string filter_template_problem(std::string_view filter,
                                    std::initializer_list<std::string_view> placeholders);

// Whether `filter` uses the placeholder `name` ("username" for "{username}").
bool filter_uses(std::string_view filter, std::string_view name);

// The template with each "{name}" replaced by its value, escaped with escape_filter_value. Names
// without a value are left as they are (the template was checked when the configuration was read).
std::string fill_filter_template(
    std::string_view filter,
    std::initializer_list<std::pair<std::string_view, std::string_view>> values);

}  // namespace ironhold::web::auth

#include "web/auth/ldap_filter.hpp"

#include <algorithm>

#include "inventory/util/concat.hpp"

namespace ironhold::web::auth {
namespace ldap_filter_detail {

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The length of the UTF-8 sequence starting at `s[i]` when it is a valid, shortest encoding of a
// code point that is not a control character (C0, DEL, C1) nor a surrogate; 0 otherwise.
std::size_t printable_utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return lead >= 0x20 && lead != 0x7f ? 1 : 0;
  std::size_t length = 0;
  char32_t code = 0;
  if ((lead & 0xe0) == 0xc0) {
    length = 2;
    code = lead & 0x1f;
  } else if ((lead & 0xf0) == 0xe0) {
    length = 3;
    code = lead & 0x0f;
  } else if ((lead & 0xf8) == 0xf0) {
    length = 4;
    code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > s.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3f);
  }
  static constexpr char32_t shortest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < shortest[length] || code > 0x10ffff) return 0;
  if (code >= 0xd800 && code <= 0xdfff) return 0;
  if (code >= 0x80 && code <= 0x9f) return 0;  // C1 controls
  return length;
}

// The placeholder starting with the '{' at `open` in `filter`: its name and the index of its '}',
// or npos when no '}' follows.
std::pair<std::string_view, std::size_t> placeholder_at(std::string_view filter, std::size_t open) {
  const std::size_t close = filter.find('}', open + 1);
  if (close == std::string_view::npos) return {{}, close};
  return {filter.substr(open + 1, close - open - 1), close};
}

}  // namespace ldap_filter_detail

bool acceptable_username(std::string_view username) {
  using namespace ldap_filter_detail;
  if (username.empty() || username.size() > kMaxUsernameBytes) return false;
  for (std::size_t i = 0; i < username.size();) {
    const std::size_t length = printable_utf8_length(username, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string escape_filter_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    switch (c) {
      case '*':
        out += "\\2a";
        break;
      case '(':
        out += "\\28";
        break;
      case ')':
        out += "\\29";
        break;
      case '\\':
        out += "\\5c";
        break;
      case '\0':
        out += "\\00";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string filter_template_problem(std::string_view filter,
                                    std::initializer_list<std::string_view> placeholders) {
  using namespace ldap_filter_detail;
  if (filter.empty()) return "must not be empty";
  if (filter.front() != '(' || filter.back() != ')')
    return "must be one filter in parentheses, like (uid={username})";
  int depth = 0;
  for (std::size_t i = 0; i < filter.size(); ++i) {
    const char c = filter[i];
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      // Back to depth 0 before the end: "(a=1)(b=2)" is two filters, which no server accepts.
      if (--depth < 0 || (depth == 0 && i + 1 != filter.size()))
        return "has unbalanced parentheses";
    } else if (c == '\\') {
      if (i + 2 >= filter.size() || !is_hex_digit(filter[i + 1]) || !is_hex_digit(filter[i + 2]))
        return "has a '\\' that does not start an escape of two hex digits (\\5c for a '\\')";
      i += 2;
    } else if (c == '{') {
      const auto [name, close] = placeholder_at(filter, i);
      if (close == std::string_view::npos)
        return "has a '{' without its '}' (\\7b for a literal '{')";
      if (std::find(placeholders.begin(), placeholders.end(), name) == placeholders.end()) {
        std::string known;
        for (const auto p : placeholders)
          known += util::concat(known.empty() ? "" : ", ", "{", p, "}");
        return util::concat("has an unknown placeholder {", name, "} (known: ", known, ")");
      }
      i = close;
    } else if (c == '}') {
      return "has a '}' without its '{' (\\7d for a literal '}')";
    }
  }
  if (depth != 0) return "has unbalanced parentheses";
  return {};
}

bool filter_uses(std::string_view filter, std::string_view name) {
  return filter.find(util::concat("{", name, "}")) != std::string_view::npos;
}

std::string fill_filter_template(
    std::string_view filter,
    std::initializer_list<std::pair<std::string_view, std::string_view>> values) {
  using namespace ldap_filter_detail;
  std::string out;
  out.reserve(filter.size() + 64);
  for (std::size_t i = 0; i < filter.size(); ++i) {
    if (filter[i] == '{') {
      const auto [name, close] = placeholder_at(filter, i);
      const std::string_view wanted = name;  // a lambda may not capture a structured binding
      const auto value = std::find_if(values.begin(), values.end(),
                                      [wanted](const auto& v) { return v.first == wanted; });
      if (close != std::string_view::npos && value != values.end()) {
        out += escape_filter_value(value->second);
        i = close;
        continue;
      }
    }
    out += filter[i];
  }
  return out;
}

}  // namespace ironhold::web::auth

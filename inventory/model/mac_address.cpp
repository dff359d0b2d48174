#include "inventory/model/mac_address.hpp"

#include <cctype>

namespace ironhold {

std::optional<std::string> normalize_mac(std::string_view text) {
  std::string hex;
  hex.reserve(12);
  char separator = 0;
  std::size_t digits_in_group = 0;
  for (const char c : text) {
    if (std::isxdigit(static_cast<unsigned char>(c))) {
      hex.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      ++digits_in_group;
      continue;
    }
    // A separator must be ':' or '-', the same throughout, after each pair of digits.
    if ((c != ':' && c != '-') || digits_in_group != 2 || (separator && c != separator))
      return std::nullopt;
    separator = c;
    digits_in_group = 0;
  }
  if (hex.size() != 12) return std::nullopt;
  if (separator && digits_in_group != 2) return std::nullopt;
  if (separator && text.size() != 17) return std::nullopt;
  std::string out;
  out.reserve(17);
  for (std::size_t i = 0; i < 12; i += 2) {
    if (i) out.push_back(':');
    out.append(hex, i, 2);
  }
  return out;
}

}  // namespace ironhold

#pragma once
// Checks on the text of HTTP header names and values that both BMC HTTP clients make.
#include <algorithm>
#include <cctype>
#include <string_view>

namespace ironhold::bmc::http {

// Header names compare without regard to case (RFC 9110 §5.1).
inline bool same_header_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

// A CR or LF in a header or form field would let its value start a header of its own.
inline bool has_line_break(std::string_view s) {
  return s.find_first_of("\r\n") != std::string_view::npos;
}

}  // namespace ironhold::bmc::http

#include "cloudapi/common/uri_encode.hpp"

namespace ironhold::cloudapi {

namespace {

// Not std::isalnum: the signers' rule must not depend on the process locale.
bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

}  // namespace

std::string rfc3986_encode(std::string_view text, bool keep_slash) {
  static constexpr char kUpperHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() * 3);
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (unreserved(c) || (keep_slash && c == '/')) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kUpperHex[c >> 4]);
      out.push_back(kUpperHex[c & 0x0f]);
    }
  }
  return out;
}

}  // namespace ironhold::cloudapi

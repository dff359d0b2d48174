#include "inventory/model/json_text.hpp"

namespace ironhold::json_text {
namespace {

// Length of the well-formed UTF-8 sequence starting at text[i], or 0 if it is not one (the
// ranges of RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  const auto within = [&](std::size_t k, unsigned char lo, unsigned char hi) {
    return k < text.size() && byte(k) >= lo && byte(k) <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return within(i + 1, 0x80, 0xBF) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = c == 0xED ? 0x9F : 0xBF;
    return within(i + 1, lo, hi) && within(i + 2, 0x80, 0xBF) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned char lo = c == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xF4 ? 0x8F : 0xBF;
    return within(i + 1, lo, hi) && within(i + 2, 0x80, 0xBF) && within(i + 3, 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

}  // namespace

void append_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::size_t start = out.size();
  out += '"';
  std::size_t plain = 0;  // start of the run not yet copied
  const auto flush = [&](std::size_t i) { out.append(text.data() + plain, i - plain); };
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      if (const std::size_t n = utf8_sequence(text, i)) {
        i += n;
        continue;
      }
      // Invalid UTF-8: what dump() writes with error_handler_t::replace is subtle (it resyncs
      // on its own terms), so such a string is written by dump() itself, from its start. Rare:
      // text columns hold valid UTF-8.
      out.resize(start);
      out += nlohmann::json(std::string(text))
                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      return;
    }
    if (c >= 0x20 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    flush(i);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
    }
    plain = ++i;
  }
  flush(text.size());
  out += '"';
}

void append_optional(std::string& out, const std::optional<std::string>& text) {
  if (text)
    append_string(out, *text);
  else
    out += "null";
}

void append_value(std::string& out, const nlohmann::json& value) {
  if (value.is_string()) {
    append_string(out, value.get_ref<const std::string&>());
    return;
  }
  out += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ironhold::json_text

#pragma once
// JSON written straight into a string, byte for byte as nlohmann::json's dump() (compact, keys as
// given, UTF-8 kept, invalid UTF-8 replaced by U+FFFD) would write it, without building a tree
// first. For the hottest answers (node lists), where the tree cost more than the query.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ironhold::json_text {

// "text", escaped as dump() escapes it.
void append_string(std::string& out, std::string_view text);
// The string, or null.
void append_optional(std::string& out, const std::optional<std::string>& text);
// Any value, through dump().
void append_value(std::string& out, const nlohmann::json& value);
// `"key":` (the key is one of ours: plain ASCII, nothing to escape).
inline void append_key(std::string& out, std::string_view key) {
  out += '"';
  out += key;
  out += "\":";
}

}  // namespace ironhold::json_text

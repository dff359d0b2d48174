#include "web/json_body.hpp"

namespace ironhold::web {
namespace {

// Nesting depth of the text, counting brackets outside strings; cheap and done before parsing so
// that a hostile body cannot make the parser recurse deeply.
int nesting_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') deepest = std::max(deepest, ++depth);
    else if (c == '}' || c == ']') --depth;
  }
  return deepest;
}

bool contains_nul(const nlohmann::json& value) {
  if (value.is_string()) return value.get_ref<const std::string&>().find('\0') != std::string::npos;
  if (value.is_object()) {
    for (const auto& [key, item] : value.items())
      if (key.find('\0') != std::string::npos || contains_nul(item)) return true;
  } else if (value.is_array()) {
    for (const auto& item : value)
      if (contains_nul(item)) return true;
  }
  return false;
}

}  // namespace

std::optional<nlohmann::json> parse_json(std::string_view text, std::string& error) {
  if (nesting_depth(text) > max_json_depth) {
    error = "the JSON body nests deeper than " + std::to_string(max_json_depth) + " levels";
    return std::nullopt;
  }
  auto value = nlohmann::json::parse(text, nullptr, false);
  if (value.is_discarded()) {
    // Re-parse with exceptions only to get the position and reason for the message.
    try {
      const auto unused = nlohmann::json::parse(text);
      (void)unused;
    } catch (const nlohmann::json::parse_error& e) {
      error = std::string("malformed JSON: ") + e.what();
      return std::nullopt;
    }
    error = "malformed JSON";
    return std::nullopt;
  }
  if (contains_nul(value)) {
    error = "JSON strings must not contain NUL characters (\\u0000)";
    return std::nullopt;
  }
  return value;
}

}  // namespace ironhold::web

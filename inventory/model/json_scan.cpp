#include "inventory/model/json_scan.hpp"

namespace ironhold::json_text {
namespace {

constexpr std::size_t kEnd = std::string_view::npos;

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::size_t skip_space(std::string_view s, std::size_t i) {
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}

// s[i] is the opening quote: the index just past the closing one (kEnd if there is none).
std::size_t past_string(std::string_view s, std::size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\')
      ++i;  // whatever is escaped cannot end the string
    else if (s[i] == '"')
      return i + 1;
  }
  return kEnd;
}

// The index just past the value starting at s[i] (kEnd if it ends early).
std::size_t past_value(std::string_view s, std::size_t i) {
  if (i >= s.size()) return kEnd;
  if (s[i] == '"') return past_string(s, i);
  if (s[i] == '{' || s[i] == '[') {
    int depth = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (c == '"') {
        i = past_string(s, i);
        if (i == kEnd) return kEnd;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return kEnd;
  }
  // A number or a literal: up to the next delimiter.
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && !is_space(s[i])) ++i;
  return i;
}

}  // namespace

void append_compact(std::string& out, std::string_view json) {
  std::size_t run = 0;  // start of the stretch not yet copied
  for (std::size_t i = 0; i < json.size();) {
    if (json[i] == '"') {
      const std::size_t end = past_string(json, i);
      i = end == kEnd ? json.size() : end;
    } else if (is_space(json[i])) {
      out.append(json.data() + run, i - run);
      i = skip_space(json, i);
      run = i;
    } else {
      ++i;
    }
  }
  out.append(json.data() + run, json.size() - run);
}

std::optional<std::string_view> member(std::string_view json, std::string_view key) {
  std::size_t i = skip_space(json, 0);
  if (i >= json.size() || json[i] != '{') return std::nullopt;
  i = skip_space(json, i + 1);
  while (i < json.size() && json[i] == '"') {
    const std::size_t key_end = past_string(json, i);
    if (key_end == kEnd) return std::nullopt;
    const std::string_view name = json.substr(i + 1, key_end - i - 2);
    i = skip_space(json, key_end);
    if (i >= json.size() || json[i] != ':') return std::nullopt;
    const std::size_t value = skip_space(json, i + 1);
    const std::size_t value_end = past_value(json, value);
    if (value_end == kEnd) return std::nullopt;
    if (name == key) return json.substr(value, value_end - value);
    i = skip_space(json, value_end);
    if (i >= json.size() || json[i] != ',') return std::nullopt;
    i = skip_space(json, i + 1);
  }
  return std::nullopt;
}

}  // namespace ironhold::json_text

#include "inventory/crypto/jose/untrusted.hpp"

#include <set>

#include "inventory/crypto/primitives.hpp"

namespace ironhold::crypto::jose::detail {

bool decode_base64url(std::string_view text, std::vector<std::uint8_t>& out) {
  return from_base64url(text, out) && base64url(out) == text;
}

std::optional<nlohmann::json> parse_object(std::string_view text, std::string& why) {
  using nlohmann::json;
  // The callback sees every object as it opens and every name in it; the parser itself never
  // recurses, so depth is only counted here, not defended against.
  std::vector<std::set<std::string>> open_objects;
  int depth = 0;
  bool too_deep = false;
  std::optional<std::string> duplicate;
  const json::parser_callback_t watch = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        open_objects.emplace_back();
        [[fallthrough]];
      case json::parse_event_t::array_start:
        if (++depth > max_json_depth) too_deep = true;
        break;
      case json::parse_event_t::object_end:
        if (!open_objects.empty()) open_objects.pop_back();
        [[fallthrough]];
      case json::parse_event_t::array_end:
        --depth;
        break;
      case json::parse_event_t::key:
        if (!open_objects.empty() && parsed.is_string() &&
            !open_objects.back().insert(parsed.get<std::string>()).second && !duplicate)
          duplicate = parsed.get<std::string>();
        break;
      case json::parse_event_t::value:
        break;
    }
    return true;
  };
  json value = json::parse(text.begin(), text.end(), watch, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    why = "is not JSON";
    return std::nullopt;
  }
  if (too_deep) {
    why = "nests deeper than " + std::to_string(max_json_depth) + " levels";
    return std::nullopt;
  }
  if (duplicate) {
    why = "names " + quote_value(*duplicate) + " twice";
    return std::nullopt;
  }
  if (!value.is_object()) {
    why = "is not a JSON object";
    return std::nullopt;
  }
  return value;
}

std::string quote_value(std::string_view text) {
  constexpr std::size_t max_shown = 64;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < max_shown; ++i) {
    const char c = text[i];
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (text.size() > max_shown) out += "...";
  out += '\'';
  return out;
}

}  // namespace ironhold::crypto::jose::detail

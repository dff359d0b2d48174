#pragma once
// Handling the text of a token or a key set before anything about it is trusted: strict
// base64url, JSON objects parsed without exceptions, duplicate names or deep nesting, and values
// cut down before they are quoted in an error message.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::crypto::jose::detail {

// Deeper than any header, claim set or key set needs, far below what could cost anything.
inline constexpr int max_json_depth = 16;

// base64url without padding, in its one canonical spelling: the unused low bits of the last
// character must be zero, so no two strings decode to the same bytes (a token has one form).
bool decode_base64url(std::string_view text, std::vector<std::uint8_t>& out);

// A JSON object, or nullopt with `why` saying what is wrong ("is not JSON", "is not a JSON
// object", "names \"alg\" twice"). Duplicate names are refused at every level: two parsers that
// keep different copies of "alg" or "sub" would each see another token (RFC 7515 section 5.2).
std::optional<nlohmann::json> parse_object(std::string_view text, std::string& why);

// `text` between single quotes for an error message: at most 64 characters, anything outside
// printable ASCII shown as '?', so that a hostile value neither floods a log nor forges lines.
std::string quote_value(std::string_view text);

}  // namespace ironhold::crypto::jose::detail

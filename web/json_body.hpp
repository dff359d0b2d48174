#pragma once
// Parsing JSON from the network: never throws, caps nesting depth, rejects NUL characters (which
// PostgreSQL text cannot store) and invalid UTF-8.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ironhold::web {

inline constexpr int max_json_depth = 32;

// On failure returns nullopt with `error` describing what is wrong for the client.
std::optional<nlohmann::json> parse_json(std::string_view text, std::string& error);

}  // namespace ironhold::web

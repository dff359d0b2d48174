#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace ironhold {

using SystemTime = std::chrono::system_clock::time_point;

// RFC 3339 in UTC with microseconds: 2026-11-29T17:41:55.123456Z
std::string format_rfc3339(SystemTime t);
// Accepts RFC 3339 with 'Z' or a numeric offset, with or without fractional seconds.
std::optional<SystemTime> parse_rfc3339(std::string_view text);

}  // namespace ironhold

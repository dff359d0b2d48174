#pragma once
// Structured logs: one JSON object a line to stderr. Fields are key/value pairs; secrets never go in.
//   log::info("node enrolled", {{"node", name}, {"request_id", rid}});
#include <nlohmann/json.hpp>
#include <string_view>

namespace ironhold::log {

enum class Level { debug, info, warn, error };

void set_level(Level level);
Level level();
// "debug", "info", "warn", "error"; false for anything else.
bool parse_level(std::string_view text, Level& out);

// Where lines go; stderr by default. Tests point it at a buffer to read what was logged.
using Sink = void (*)(std::string_view line);
void set_sink(Sink sink);

void write(Level level, std::string_view message, const nlohmann::json& fields = nlohmann::json::object());
inline void debug(std::string_view m, const nlohmann::json& f = nlohmann::json::object()) { write(Level::debug, m, f); }
inline void info(std::string_view m, const nlohmann::json& f = nlohmann::json::object()) { write(Level::info, m, f); }
inline void warn(std::string_view m, const nlohmann::json& f = nlohmann::json::object()) { write(Level::warn, m, f); }
inline void error(std::string_view m, const nlohmann::json& f = nlohmann::json::object()) { write(Level::error, m, f); }

}  // namespace ironhold::log

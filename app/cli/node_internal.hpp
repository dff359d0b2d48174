#pragma once
// Private helpers shared by the `ironhold node` sources (node_requests.cpp, node_import.cpp and
// node_commands.cpp). Not part of the CLI's API: include it only from app/cli/node_*.cpp.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "app/cli/args.hpp"

namespace ironhold::cli::node::detail {

inline constexpr std::string_view kNodes = "/api/v1/nodes";

// Strips leading and trailing spaces and tabs.
std::string trim(std::string_view s);

// Splits "key=value" at the first separator; throws with `what` naming the flag or column.
std::pair<std::string, std::string> split_pair(std::string_view text, char sep,
                                               const std::string& what);

// A whole number, surrounding blanks allowed; throws ironhold::Error (invalid) naming `what`.
long long parse_int(std::string_view text, const std::string& what);

// A string member, a number or bool as text, or "" for null and missing members.
std::string text(const nlohmann::json& obj, const char* key);

// The command's single positional argument; throws UsageError for none or several.
std::string one_positional(const Args& args, const char* what);

// `node import FILE.csv|-` (node_import.cpp), run from the command table in node_commands.cpp.
int cmd_import(const Args& args);

}  // namespace ironhold::cli::node::detail

#pragma once
// What every client subcommand (node, power, export, ...) shares: --url, --token, --cacert and
// -o/--output, turning them into an HttpClient, printing JSON, and mapping exceptions to the
// CLI's exit codes.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "app/cli/http_client.hpp"

namespace ironhold::cli {

enum class OutputFormat { table, json };

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// The shared options, to append to a command's own.
std::vector<Option> client_options();
std::vector<Option> with_client_options(std::vector<Option> own);

// -o/--output as an enum; throws UsageError for anything but table or json.
OutputFormat output_format(const Args& args);
// A client for --url/--token/--cacert; throws UsageError for a URL that is not http(s)://host or a
// token with characters that cannot go in a header.
HttpClient make_client(const Args& args);

// Pretty JSON on stdout, newline-terminated.
void print_json(const nlohmann::json& value);

// Runs a command body and turns its outcome into an exit code: UsageError → "error: ..." plus a
// hint to --help (2); ironhold::Error and other exceptions → "error: ..." (1). Messages go to
// stderr, made terminal-safe since they may quote the server.
int run_guarded(const std::string& command, const std::function<int()>& body);

}  // namespace ironhold::cli

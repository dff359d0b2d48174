#pragma once
// The `--config FILE` of every `ironhold` command: a small subset of TOML read into option values.
//
//   # a comment                     blank lines are fine
//   data-dir = "/var/lib/ironhold"  basic string: \\ \" \n \t \r \b \f \uXXXX \UXXXXXXXX escapes
//   database = 'host=/run/pg'       literal string: no escapes
//   db-connections = 8              integer (decimal, `_` between digits allowed)
//   no-poller = true                boolean, for flags only; false means "not set"
//   tag = ["a", "b"]                list, for repeatable options; may span lines
//   [serve]                         a section names a command ("serve", "node.list"); its keys
//   apply
//                                   to that command only, top-level keys to every command
//
// Keys are long option names ("tls-cert"; "tls_cert" also works). Everything else TOML has (quoted
// or dotted keys, multi-line strings, floats, dates, inline tables, [[arrays of tables]]) is a
// syntax error. Errors are "FILE:LINE: message" and never quote a value, which may be a secret.
// See docs/install.md for how the file combines with flags and environment variables.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/args.hpp"

namespace ironhold::cli {

struct ConfigEntry {
  enum class Type { string, integer, boolean, list };

  std::string section;  // "" at the top level, else as written in the header: "serve", "node.list"
  std::string key;      // as written: "tls_cert"
  std::string name;     // the option it names: "tls-cert"
  Type type = Type::string;
  // One for a scalar (an integer in decimal, a boolean "true" or "false"); a list's elements.
  std::vector<std::string> values;
  int line = 0;
};

struct ConfigFile {
  std::string path;  // as given, for messages
  std::vector<ConfigEntry> entries;
};

// Parses a config file's text; `path` only names it in errors. Throws UsageError.
ConfigFile parse_config(std::string_view text, std::string path);

// Reads and parses the file (at most 1 MiB). A missing or unreadable file is a UsageError naming
// it.
ConfigFile read_config_file(const std::string& path);

// What the file sets for `command` ("ironhold node list"), one entry per option of `options`
// (empty: not set). Entries apply from the top level and from every section whose dotted words
// begin the command's words ([node] and [node.list] for `ironhold node list`); the most specific
// wins. An unknown key is an error in the section naming exactly this command, and ignored
// elsewhere (a shared file holds keys for other commands). A wrong type is an error: a list for an
// option given once, anything but true/false for a flag, a boolean for an option that takes a
// value. A flag set to false yields "not set"; a flag set to true yields {"true"}. The option
// named "config" cannot be set from a file.
std::vector<std::vector<std::string>> config_values(const ConfigFile& file,
                                                    std::string_view command,
                                                    std::span<const Option> options);

// The section names that apply to `command`, most general first: "ironhold node list" gives
// {"node", "node.list"}.
std::vector<std::string> config_sections(std::string_view command);

}  // namespace ironhold::cli

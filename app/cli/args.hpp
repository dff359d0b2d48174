#pragma once
// The argument parser every `ironhold` subcommand uses: GNU-style long and short options, an
// environment fallback, a config file and a default per option, and a generated --help text. It
// knows nothing of any command; each command declares its options and reads them back by long
// name. Every command also takes --config FILE (env IRONHOLD_CONFIG), a TOML file of option values
// (app/cli/config_file.hpp). A value comes from the command line, else the environment, else the
// config file, else the default.
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::cli {

// Bad command-line usage: the CLI prints the message and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Option {
  std::string name;         // long name without dashes: "url"
  char short_name = 0;      // 'o' for -o, 0 for none
  bool takes_value = true;  // false for a boolean flag
  bool repeatable = false;  // may be given several times (all() returns every value)
  std::string help;
  std::string env = {};  // environment fallback, e.g. "IRONHOLD_URL"
  std::string default_value = {};
  std::string value_name = "VALUE";
};

// An option from its long name, value name and help: value_name "X" takes a value, "X..." may be
// given several times, "" makes a boolean flag.
Option make_option(std::string name, std::string value_name, std::string help);

class Args {
 public:
  // command: "ironhold node list"; usage: positional part, e.g. "NODE"; summary: one line.
  // Appends the --config option every command has (a command may not declare one of its own).
  Args(std::string command, std::string usage, std::string summary, std::vector<Option> options);

  // Parses argv (everything after the subcommand words). Accepts --name=value, --name value,
  // -o value, -ovalue, bundled short flags (-ab), "--" ends options, a lone "-" is positional.
  // Throws UsageError naming the bad option. --help/-h sets help_requested() and suppresses
  // errors from the other arguments, so `--help` always works. Then reads the config file that
  // --config or IRONHOLD_CONFIG names (not with --help): UsageError "FILE:LINE: ..." for a bad
  // file; `--config=` reads none.
  void parse(std::span<const std::string> argv);

  bool help_requested() const { return help_requested_; }
  // Usage line, summary, options table with env vars and defaults.
  std::string help_text() const;

  // Last given value, else the environment variable (when set and non-empty), else the config
  // file's value, else the default; nullopt if none of them. Asking for an option that was never
  // declared is a programming error (std::logic_error).
  std::optional<std::string> get(std::string_view name) const;
  std::string value_or(std::string_view name, std::string fallback) const;
  // Values of a repeatable option in the order given (else the env, the file's list or the
  // default).
  std::vector<std::string> all(std::string_view name) const;
  // A boolean flag was given (or its environment variable is 1/true/yes/on, or the file sets it
  // true).
  bool flag(std::string_view name) const;
  // The option was given on the command line (not from env, file or default).
  bool given(std::string_view name) const;
  const std::vector<std::string>& positional() const { return positional_; }

  const std::string& command() const { return command_; }

 private:
  struct Given {
    std::size_t option;  // index into options_
    std::string value;
  };

  std::size_t index_of(std::string_view name) const;  // throws std::logic_error
  const Option* find_long(std::string_view name) const;
  const Option* find_short(char c) const;
  // Handles one "-..." word; may consume the next word as the value. Returns words consumed.
  std::size_t parse_long(std::span<const std::string> rest);
  std::size_t parse_short(std::span<const std::string> rest);
  void record(const Option& opt, std::string value);
  // When nothing was given: the env value, else the file's values, else the default, else none.
  std::vector<std::string> fallback(std::size_t option) const;
  void read_config();

  std::string command_;
  std::string usage_;
  std::string summary_;
  std::vector<Option> options_;
  std::vector<Given> given_;
  std::vector<std::vector<std::string>> from_config_;  // per option; empty: not in the file
  std::vector<std::string> positional_;
  bool help_requested_ = false;
};

}  // namespace ironhold::cli

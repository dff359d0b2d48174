#pragma once
// `ironhold node list|show|enroll|set|rm|import`: the CLI over /api/v1/nodes.
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/args.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::cli {

// argv = the words after "node" (e.g. {"list", "--health", "ok"}). Returns the process exit code.
// Writes results to stdout, errors ("error: <server problem detail>") to stderr.
int run_node_command(std::span<const std::string> argv);

// The pure pieces of the commands, exposed so unit tests can check them without a server.
namespace node {

// The parser for one subcommand ("list", "show", ...); throws UsageError for an unknown one.
Args make_args(std::string_view subcommand);

// "?health=ok&tag=rack%3Ar1..." for `node list` (empty when there is no filter).
std::string list_query(const Args& list_args);
// The node selectors alone (--health, --site, --tag, ...), as `node list` and `export` take them,
// and their query string.
std::vector<Option> selector_options();
std::string selector_query(const Args& args);
// The POST body for `node enroll`; the password comes separately (it may come from stdin).
nlohmann::json enroll_body(const Args& enroll_args, const std::optional<std::string>& password);
// The PATCH body for `node set`; throws UsageError when it would change nothing.
nlohmann::json patch_body(const Args& set_args, const std::optional<std::string>& password);

// An option's JSON value from its text: cipher_suites "17,3" or "17;3" → [17,3], others strings.
nlohmann::json option_value(std::string_view key, std::string_view text);

// One `node list` table row: NAME, HEALTH, POWER, DRIVER, ENDPOINT, LOCATION, LIFECYCLE, LAST SEEN.
std::vector<std::string> list_row(const nlohmann::json& node, SystemTime now);
// `node show` as aligned "Key: value" lines.
std::string show_text(const nlohmann::json& node);

// Maps rows of an import CSV onto enrollment bodies. The constructor checks the header, so an
// unknown or duplicate column is reported before anything is sent.
class ImportMapper {
 public:
  // Throws ironhold::Error (invalid) naming the bad column.
  explicit ImportMapper(const std::vector<std::string>& header);

  // Throws ironhold::Error (invalid) naming the column of a bad cell (unit, tags, options, ...).
  nlohmann::json body(const std::vector<std::string>& row) const;
  // The row's name cell, trimmed (empty when missing), for reports.
  std::string name(const std::vector<std::string>& row) const;

 private:
  enum class Kind { field, credential, location, unit, tags, options, tag, option };
  struct Column {
    Kind kind;
    std::string key;  // JSON key, tag key or option key
  };
  std::vector<Column> columns_;
  std::size_t name_column_ = 0;
};

}  // namespace node
}  // namespace ironhold::cli

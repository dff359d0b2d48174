#pragma once
// `ironhold GROUP COMMAND [OPTIONS]` for the groups of subcommands (task, firmware, rollout): the
// group's help, each command's Args with the client options, and the exit status for an unknown
// command or a usage error.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/args.hpp"

namespace ironhold::cli {

struct Subcommand {
  std::string_view name;
  std::string_view usage;    // the positional arguments: "TASK"
  std::string_view summary;  // its first sentence is its line in the group's help
  int (*run)(const Args&);
};

struct CommandGroup {
  std::string_view name;         // "task"
  std::string_view description;  // "Follow and cancel tasks."
  std::span<const Subcommand> commands;
  std::vector<Option> (*options_of)(std::string_view command);  // besides the client options
};

int run_command_group(const CommandGroup& group, std::span<const std::string> argv);

}  // namespace ironhold::cli

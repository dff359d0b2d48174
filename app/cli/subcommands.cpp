#include "app/cli/subcommands.hpp"

#include <iostream>

#include "app/cli/client_options.hpp"
#include "app/cli/table.hpp"

namespace ironhold::cli {
namespace {

std::string group_help(const CommandGroup& group) {
  std::string out = "Usage: ironhold " + std::string(group.name) + " COMMAND [OPTIONS]\n\n" +
                    std::string(group.description) + "\n\nCommands:\n";
  std::size_t width = 0;
  for (const auto& c : group.commands) width = std::max(width, c.name.size());
  for (const auto& c : group.commands) {
    const auto stop = c.summary.find(". ");
    out += "  " + std::string(c.name) + std::string(width + 2 - c.name.size(), ' ') +
           std::string(
               c.summary.substr(0, stop == std::string_view::npos ? c.summary.size() : stop + 1)) +
           '\n';
  }
  return out + "\nRun 'ironhold " + std::string(group.name) +
         " COMMAND --help' for a command's options.\n";
}

}  // namespace

int run_command_group(const CommandGroup& group, std::span<const std::string> argv) {
  if (argv.empty()) {
    std::cerr << group_help(group);
    return kExitUsage;
  }
  if (argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
    std::cout << group_help(group);
    return kExitOk;
  }
  for (const auto& c : group.commands) {
    if (c.name != argv[0]) continue;
    const std::string command = "ironhold " + std::string(group.name) + " " + std::string(c.name);
    return run_guarded(command, [&] {
      Args args(command, std::string(c.usage), std::string(c.summary),
                with_client_options(group.options_of(c.name)));
      args.parse(argv.subspan(1));
      if (args.help_requested()) {
        std::cout << args.help_text();
        return kExitOk;
      }
      return c.run(args);
    });
  }
  std::cerr << "error: unknown " << group.name << " command \"" << terminal_safe(argv[0])
            << "\"\nrun 'ironhold " << group.name << " --help' for the commands\n";
  return kExitUsage;
}

}  // namespace ironhold::cli

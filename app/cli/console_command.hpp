#pragma once
// `ironhold console NODE`: the node's serial console in this terminal.
#include <span>
#include <string>

namespace ironhold::cli {

int run_console_command(std::span<const std::string> argv);

}  // namespace ironhold::cli

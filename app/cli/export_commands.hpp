#pragma once
// `ironhold export assets|firmware`: an export streamed to a file (or stdout), checked against
// its manifest, which is written beside the file.
#include <span>
#include <string>

namespace ironhold::cli {

int run_export_command(std::span<const std::string> argv);

}  // namespace ironhold::cli

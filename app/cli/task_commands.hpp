#pragma once
// The CLI over tasks: `ironhold power|boot|identify|reprovision|bulk|firmware` create them (one per
// node), `ironhold task show|list|cancel` follow them. Each returns the process exit code; with
// --wait, 0 only if every task succeeded.
#include <span>
#include <string>

namespace ironhold::cli {

int run_power_command(std::span<const std::string> argv);
int run_boot_command(std::span<const std::string> argv);
int run_identify_command(std::span<const std::string> argv);
int run_task_command(std::span<const std::string> argv);
int run_reprovision_command(std::span<const std::string> argv);
int run_bulk_command(std::span<const std::string> argv);
int run_firmware_command(std::span<const std::string> argv);
int run_bios_command(std::span<const std::string> argv);
int run_credentials_command(std::span<const std::string> argv);
int run_rollout_command(std::span<const std::string> argv);

}  // namespace ironhold::cli

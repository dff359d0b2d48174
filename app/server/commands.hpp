#pragma once
// Server-side commands: they work on the database directly (--database or --data-dir).
#include <span>
#include <string>

namespace ironhold::app {

int run_serve(std::span<const std::string> argv);
int run_demo(std::span<const std::string> argv);
int run_migrate(std::span<const std::string> argv);
int run_db_command(std::span<const std::string> argv);       // db shell
int run_token_command(std::span<const std::string> argv);    // token create|list|revoke
int run_user_command(std::span<const std::string> argv);     // user add|passwd|rm|list|grant|revoke
int run_project_command(std::span<const std::string> argv);  // project add|list|rm
int run_keys_command(std::span<const std::string> argv);     // keys rotate
int run_backup_command(std::span<const std::string> argv);   // backup --output FILE
int run_restore_command(std::span<const std::string> argv);  // restore FILE
int run_sim_command(std::span<const std::string> argv);      // sim redfish

}  // namespace ironhold::app

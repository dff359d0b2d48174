#pragma once
// Server-side commands: they work on the database directly (--database or --data-dir).
#include <span>
#include <string>

namespace ironhold::app {

int run_serve(std::span<const std::string> argv);
int run_demo(std::span<const std::string> argv);
int run_migrate(std::span<const std::string> argv);
int run_db_command(std::span<const std::string> argv);  // db shell
int run_token_command(std::span<const std::string> argv);
int run_keys_command(
    std::span<const std::string> argv);                  // keys rotate  // token create|list|revoke
int run_sim_command(std::span<const std::string> argv);  // sim redfish

}  // namespace ironhold::app

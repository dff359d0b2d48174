// ironhold: one binary for the service, its server-side commands and the client CLI.
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "app/cli/audit_commands.hpp"
#include "app/cli/console_command.hpp"
#include "app/cli/export_commands.hpp"
#include "app/cli/gpu_model_commands.hpp"
#include "app/cli/node_commands.hpp"
#include "app/cli/task_commands.hpp"
#include "app/server/commands.hpp"

namespace {

constexpr const char* usage =
    "usage: ironhold COMMAND [options]\n"
    "\n"
    "Service and server-side commands (--database URL or --data-dir DIR):\n"
    "  serve        run the service (embedded PostgreSQL by default)\n"
    "  demo         run the service with a demonstration fleet and print an admin token\n"
    "  migrate      apply database migrations\n"
    "  db shell     open psql on the database\n"
    "  token        create, list or revoke API tokens\n"
    "  user         add, list or remove users; set passwords; grant or revoke roles\n"
    "  project      add, list, set (BMC password rotation policy) or remove projects\n"
    "  keys rotate  re-encrypt every credential under a new master key, while the service runs\n"
    "  backup       write the database to a file (pg_dump), also while the service runs\n"
    "  restore      restore a backup into an empty database (or replace one's data: --force)\n"
    "  sim          run simulated BMCs (sim redfish --mockup DIR --count N, sim ipmi --count N)\n"
    "\n"
    "Client commands (--url/IRONHOLD_URL, --token/IRONHOLD_TOKEN):\n"
    "  node         list, show, enroll, set, rm or import nodes\n"
    "  power        power nodes on, off, cycle, reset or soft_off (tasks; --wait follows them)\n"
    "  boot         set a node's boot device\n"
    "  identify     turn a node's identify LED on or off\n"
    "  console      attach this terminal to a node's serial console (~. leaves)\n"
    "  reprovision  reprovision nodes (cloud instances: the provider's rebuild)\n"
    "  bulk         one action on every node a selector matches\n"
    "  firmware     firmware images and updates of owned servers\n"
    "  rollout      staged firmware rollouts (canary, batches, health gate)\n"
    "  bios         BIOS settings of owned servers: show, history, set, baselines and drift\n"
    "  credentials  rotate the BMC passwords Ironhold uses (credentials rotate NODE...)\n"
    "  gpu-model    the GPU catalogue: canonical models, aliases, unmapped names\n"
    "  task         show, list or cancel tasks\n"
    "  audit        list audit entries, or verify the audit chain\n"
    "  export       export asset or firmware records, now or as of a date\n"
    "\n"
    "Run ironhold COMMAND --help for a command's options.\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << usage;
    return 2;
  }
  const std::string command = args[0];
  const std::span<const std::string> rest = std::span<const std::string>(args).subspan(1);
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << usage;
    return 0;
  }
  if (command == "--version") {
    std::cout << "ironhold 0.1.0\n";
    return 0;
  }
  if (command == "serve") return ironhold::app::run_serve(rest);
  if (command == "demo") return ironhold::app::run_demo(rest);
  if (command == "migrate") return ironhold::app::run_migrate(rest);
  if (command == "db") return ironhold::app::run_db_command(rest);
  if (command == "token") return ironhold::app::run_token_command(rest);
  if (command == "user") return ironhold::app::run_user_command(rest);
  if (command == "project") return ironhold::app::run_project_command(rest);
  if (command == "keys") return ironhold::app::run_keys_command(rest);
  if (command == "backup") return ironhold::app::run_backup_command(rest);
  if (command == "restore") return ironhold::app::run_restore_command(rest);
  if (command == "sim") return ironhold::app::run_sim_command(rest);
  if (command == "node") return ironhold::cli::run_node_command(rest);
  if (command == "power") return ironhold::cli::run_power_command(rest);
  if (command == "boot") return ironhold::cli::run_boot_command(rest);
  if (command == "identify") return ironhold::cli::run_identify_command(rest);
  if (command == "console") return ironhold::cli::run_console_command(rest);
  if (command == "task") return ironhold::cli::run_task_command(rest);
  if (command == "audit") return ironhold::cli::run_audit_command(rest);
  if (command == "export") return ironhold::cli::run_export_command(rest);
  if (command == "reprovision") return ironhold::cli::run_reprovision_command(rest);
  if (command == "bulk") return ironhold::cli::run_bulk_command(rest);
  if (command == "firmware") return ironhold::cli::run_firmware_command(rest);
  if (command == "bios") return ironhold::cli::run_bios_command(rest);
  if (command == "credentials") return ironhold::cli::run_credentials_command(rest);
  if (command == "rollout") return ironhold::cli::run_rollout_command(rest);
  if (command == "gpu-model") return ironhold::cli::run_gpu_model_command(rest);
  std::cerr << "ironhold: unknown command \"" << command << "\"\n\n" << usage;
  return 2;
}

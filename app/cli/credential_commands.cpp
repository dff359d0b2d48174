// `ironhold credentials rotate` (POST /api/v1/nodes/{node}/credentials/rotate: one task per
// node). A project's rotation policy is set by `ironhold project set` (app/server) or PATCH
// /api/v1/projects/{name}.
#include <iostream>

#include "app/cli/client_options.hpp"
#include "app/cli/node_tasks.hpp"
#include "app/cli/subcommands.hpp"
#include "app/cli/table.hpp"
#include "app/cli/task_commands.hpp"
#include "app/cli/task_wait.hpp"

namespace ironhold::cli {
// Named, not anonymous: the unity build compiles this file with the other commands', whose
// helpers have the same names.
namespace credential_commands {

using nlohmann::json;

int rotate(const Args& a) {
  if (a.positional().empty()) throw UsageError("give at least one NODE");
  json body = json::object();
  if (a.flag("password-stdin")) {
    if (a.positional().size() != 1)
      throw UsageError("--password-stdin sets one node's password: give exactly one NODE");
    std::string line;
    if (!std::getline(std::cin, line)) throw UsageError("--password-stdin: nothing on stdin");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    body["password"] = line;
  }
  if (auto length = a.get("length")) {
    try {
      body["length"] = std::stoi(*length);
    } catch (const std::exception&) {
      throw UsageError("--length must be a whole number");
    }
  }
  HttpClient client = make_client(a);
  CreatedTasks created;
  for (const auto& node : a.positional())
    created.tasks.push_back(
        client.post("/api/v1/nodes/" + url_encode(node) + "/credentials/rotate", body));
  return report_tasks(a, client, std::move(created));
}

constexpr Subcommand kCredentialCommands[] = {
    {"rotate", "NODE...",
     "Rotate the password of the BMC account Ironhold uses (one task per node): changed at the "
     "BMC, proven by a fresh login, then stored. The password is made for each node and never "
     "shown.",
     &rotate},
};

std::vector<Option> credential_options(std::string_view name) {
  if (name != "rotate") return {};
  auto options = wait_options();
  options.erase(options.begin() + 1);  // no --timeout: the task's own
  options.push_back(
      make_option("length", "N", "Length of the made password (default 20, IPMI 16)."));
  options.push_back(make_option("password-stdin", "",
                                "Use the first line of stdin as the new password (one node)."));
  return options;
}

}  // namespace credential_commands

int run_credentials_command(std::span<const std::string> argv) {
  using namespace credential_commands;
  static const CommandGroup group{"credentials", "BMC credentials of owned servers.",
                                  kCredentialCommands, &credential_options};
  return run_command_group(group, argv);
}

}  // namespace ironhold::cli

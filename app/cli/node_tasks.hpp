#pragma once
// One task per node through POST /api/v1/nodes/{node}/<action>, reported as they are queued or
// followed to the end with --wait.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "app/cli/client_options.hpp"
#include "app/cli/http_client.hpp"

namespace ironhold::cli {

// --wait and --timeout, as every task command has them.
std::vector<Option> wait_options();

// The tasks created, and how many nodes the server refused (each reported on stderr).
struct CreatedTasks {
  std::vector<nlohmann::json> tasks;
  int refused = 0;
};

// Creates one task per node; a node the server refuses is reported and counted, the others go on.
CreatedTasks create_node_tasks(HttpClient& client, const std::vector<std::string>& nodes,
                               const std::string& action, const nlohmann::json& body);
// Prints the tasks (or follows them with --wait); the exit code: 0 only when no node was refused
// and, with --wait, every task succeeded.
int report_tasks(const Args& a, HttpClient& client, CreatedTasks created);
// --selector's text as a selector object: "rack=R12,health=critical,tag=team:ml" →
// {"rack": "R12", "health": "critical", "tag": "team:ml"}; a key given twice becomes a list.
nlohmann::json parse_selector(const std::string& text);
// --timeout SECONDS as the body's "timeout_s".
void add_timeout(const Args& a, nlohmann::json& body);

}  // namespace ironhold::cli

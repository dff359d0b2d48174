// Creating one task per node and reporting them: shared by the action commands and `ironhold
// firmware update`.
#include "app/cli/node_tasks.hpp"

#include <unistd.h>

#include <iostream>

#include "app/cli/table.hpp"
#include "app/cli/task_wait.hpp"

namespace ironhold::cli {

using nlohmann::json;

std::vector<Option> wait_options() {
  return {make_option("wait", "", "Follow the tasks until they end; exit 0 only if all succeeded."),
          make_option("timeout", "SECONDS",
                      "How long each task waits for the node to reach the state (server default "
                      "300).")};
}

CreatedTasks create_node_tasks(HttpClient& client, const std::vector<std::string>& nodes,
                               const std::string& action, const json& body) {
  CreatedTasks out;
  for (const auto& node : nodes) {
    try {
      out.tasks.push_back(client.post("/api/v1/nodes/" + url_encode(node) + "/" + action, body));
    } catch (const ApiError& e) {
      std::cerr << "error: " << terminal_safe(node) << ": " << terminal_safe(e.what()) << '\n';
      ++out.refused;
    }
  }
  return out;
}

int report_tasks(const Args& a, HttpClient& client, CreatedTasks created) {
  const OutputFormat format = output_format(a);
  std::vector<json> tasks = std::move(created.tasks);
  if (a.flag("wait") && !tasks.empty()) {
    WaitOptions w;
    w.terminal = format == OutputFormat::table && isatty(STDOUT_FILENO);
    tasks = wait_for_tasks(client, std::move(tasks),
                           format == OutputFormat::json ? std::cerr : std::cout, w);
  } else if (format == OutputFormat::table) {
    for (const auto& t : tasks)
      std::cout << terminal_safe(t.value("node_name", "")) << "  " << terminal_safe(task_summary(t))
                << "  task " << t.value("id", "") << " " << t.value("state", "") << '\n';
  }
  if (format == OutputFormat::json) print_json(json(tasks));
  if (created.refused > 0) return kExitFailure;
  if (a.flag("wait"))
    for (const auto& t : tasks)
      if (t.value("state", "") != "succeeded") return kExitFailure;
  return kExitOk;
}

void add_timeout(const Args& a, json& body) {
  if (auto t = a.get("timeout")) {
    int seconds = 0;
    try {
      std::size_t used = 0;
      seconds = std::stoi(*t, &used);
      if (used != t->size()) throw std::invalid_argument(*t);
    } catch (const std::exception&) {
      throw UsageError("--timeout must be a whole number of seconds");
    }
    body["timeout_s"] = seconds;
  }
}

// "rack=R12,health=critical,tag=team:ml" → {"rack": "R12", "health": "critical", "tag": "team:ml"};
// a key given twice becomes a list.
json parse_selector(const std::string& text) {
  json selector = json::object();
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = text.find(',', at);
    const std::string part =
        text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    at = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (part.empty()) continue;
    const auto eq = part.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--selector takes KEY=VALUE pairs separated by commas, not \"" + part +
                       "\"");
    const std::string key = part.substr(0, eq), value = part.substr(eq + 1);
    if (!selector.contains(key))
      selector[key] = value;
    else if (selector[key].is_array())
      selector[key].push_back(value);
    else
      selector[key] = json::array({selector[key], value});
  }
  return selector;
}

}  // namespace ironhold::cli

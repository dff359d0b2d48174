#include "app/cli/task_wait.hpp"

#include <thread>

#include "app/cli/table.hpp"

namespace ironhold::cli {

using nlohmann::json;

std::string field_text(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

bool task_ended(const json& task) {
  const std::string state = field_text(task, "state");
  return state == "succeeded" || state == "failed" || state == "cancelled";
}

std::string task_summary(const json& task) {
  const std::string kind = field_text(task, "kind");
  const json params = task.value("parameters", json::object());
  if (kind == "power") return "power " + field_text(params, "action");
  if (kind == "boot")
    return "boot " + field_text(params, "device") +
           (params.value("persistent", false) ? " persistent" : "");
  if (kind == "identify")
    return std::string("identify ") + (params.value("on", false) ? "on" : "off");
  if (kind == "firmware")
    return "firmware " + field_text(params, "component") + " " + field_text(params, "version");
  return kind;
}

std::string task_outcome_line(const json& task) {
  std::string line = terminal_safe(field_text(task, "node_name")) + "  " +
                     terminal_safe(task_summary(task)) + "  " + field_text(task, "state");
  if (!field_text(task, "error").empty()) line += ": " + terminal_safe(field_text(task, "error"));
  return line;
}

std::vector<json> wait_for_tasks(HttpClient& client, std::vector<json> tasks, std::ostream& out,
                                 const WaitOptions& options) {
  std::vector<bool> reported(tasks.size(), false);
  for (;;) {
    std::size_t ended = 0, running = 0, failed = 0;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      if (!task_ended(tasks[i]))
        tasks[i] = client.get("/api/v1/tasks/" + field_text(tasks[i], "id"));
      if (task_ended(tasks[i])) {
        ++ended;
        if (field_text(tasks[i], "state") != "succeeded") ++failed;
        if (!reported[i] && !options.terminal) out << task_outcome_line(tasks[i]) << '\n';
        reported[i] = true;
      } else if (field_text(tasks[i], "state") == "running") {
        ++running;
      }
    }
    if (options.terminal) {
      // \r and an erase-to-end-of-line: one line, rewritten.
      out << "\r\x1b[K" << ended << '/' << tasks.size() << " done, " << running << " running, "
          << tasks.size() - ended - running << " queued, " << failed << " failed" << std::flush;
    } else {
      out << std::flush;
    }
    if (ended == tasks.size()) break;
    std::this_thread::sleep_for(options.poll_interval);
  }
  if (options.terminal) {
    out << '\n';
    for (const auto& t : tasks) out << task_outcome_line(t) << '\n';
  }
  return tasks;
}

}  // namespace ironhold::cli

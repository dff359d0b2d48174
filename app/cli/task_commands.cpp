// `ironhold task show|list|cancel`: the CLI over /api/v1/tasks.
#include "app/cli/task_commands.hpp"

#include <iostream>

#include "app/cli/client_options.hpp"
#include "app/cli/paging.hpp"
#include "app/cli/subcommands.hpp"
#include "app/cli/table.hpp"
#include "app/cli/task_wait.hpp"
#include "inventory/error.hpp"

namespace ironhold::cli {
// Named, not anonymous: the unity build compiles this file with the other commands', whose
// helpers have the same names.
namespace task_commands {

using nlohmann::json;

std::string one_task_id(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one TASK id");
  return a.positional()[0];
}

std::string show_text(const json& t) {
  std::vector<std::pair<std::string, std::string>> fields = {
      {"Id", field_text(t, "id")},
      {"Node", field_text(t, "node_name")},
      {"Action", task_summary(t)},
      {"State", field_text(t, "state")},
      {"Error", field_text(t, "error")},
      {"Requested by", field_text(t, "requested_by")},
      {"Created", field_text(t, "created_at")},
      {"Started", field_text(t, "started_at")},
      {"Finished", field_text(t, "finished_at")},
      {"Attempts", field_text(t, "attempts")},
      {"Bulk", field_text(t, "bulk_id")}};
  std::string out = render_fields(fields);
  if (t.contains("steps") && t["steps"].is_array() && !t["steps"].empty()) {
    Table steps({"STEP", "STATE", "DETAIL"});
    for (const auto& s : t["steps"]) {
      std::string detail = field_text(s, "detail");
      if (!field_text(s, "in_doubt").empty())
        detail += " [in doubt: " + field_text(s, "in_doubt") + "]";
      steps.add_row({field_text(s, "name"), field_text(s, "state"), detail});
    }
    out += "\n" + steps.render();
  }
  return out;
}

int show(const Args& a) {
  const std::string id = one_task_id(a);
  const OutputFormat format = output_format(a);
  HttpClient client = make_client(a);
  const json t = client.get("/api/v1/tasks/" + url_encode(id));
  if (format == OutputFormat::json)
    print_json(t);
  else
    std::cout << show_text(t);
  return kExitOk;
}

int list(const Args& a) {
  const OutputFormat format = output_format(a);
  std::string query;
  for (const char* name : {"node", "state", "kind", "bulk-id"}) {
    if (auto v = a.get(name)) {
      std::string key = name;
      if (key == "bulk-id") key = "bulk_id";
      query += (query.empty() ? "?" : "&") + key + "=" + url_encode(*v);
    }
  }
  const std::size_t want = item_limit(a, 100);
  HttpClient client = make_client(a);
  const std::vector<json> items = fetch_items(client, "/api/v1/tasks", query, want);
  if (format == OutputFormat::json) {
    print_json(json(items));
    return kExitOk;
  }
  Table table({"ID", "NODE", "ACTION", "STATE", "CREATED", "ERROR"});
  for (const auto& t : items)
    table.add_row({field_text(t, "id"), field_text(t, "node_name"), task_summary(t),
                   field_text(t, "state"), field_text(t, "created_at"), field_text(t, "error")});
  std::cout << table.render();
  return kExitOk;
}

int cancel(const Args& a) {
  const std::string id = one_task_id(a);
  const OutputFormat format = output_format(a);
  HttpClient client = make_client(a);
  const json t = client.post("/api/v1/tasks/" + url_encode(id) + "/cancel", json::object());
  if (format == OutputFormat::json)
    print_json(t);
  else if (field_text(t, "state") == "cancelled")
    std::cout << "cancelled " << field_text(t, "id") << '\n';
  else
    std::cout << "cancel requested for " << field_text(t, "id") << " (it stops at its next step)\n";
  return kExitOk;
}

constexpr Subcommand kCommands[] = {
    {"show", "TASK", "Show a task with its steps.", &show},
    {"list", "", "List tasks, newest first.", &list},
    {"cancel", "TASK", "Cancel a task (at once when queued, at its next step when running).",
     &cancel},
};

std::vector<Option> options_of(std::string_view name) {
  if (name != "list") return {};
  return {make_option("node", "NODE", "Only this node's tasks."),
          make_option("state", "STATE", "queued, running, succeeded, failed or cancelled."),
          make_option("kind", "KIND",
                      "power, boot, identify, reprovision, inspect, clean or firmware."),
          make_option("bulk-id", "ID", "Only the tasks of one bulk action."),
          make_option("limit", "N", "Show at most N tasks (default 100).")};
}

}  // namespace task_commands

int run_task_command(std::span<const std::string> argv) {
  using namespace task_commands;
  static const CommandGroup group{"task", "Follow and cancel tasks.", kCommands, &options_of};
  return run_command_group(group, argv);
}

}  // namespace ironhold::cli

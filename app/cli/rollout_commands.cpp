// `ironhold rollout start|list|show|pause|resume|abort`: the CLI over /api/v1/firmware/rollouts.
// `start --wait` follows the rollout until it succeeds, halts or is aborted: a progress line on a
// terminal, plain lines otherwise; exit 0 only when it succeeded.
#include <unistd.h>

#include <iostream>
#include <thread>

#include "app/cli/client_options.hpp"
#include "app/cli/node_tasks.hpp"
#include "app/cli/subcommands.hpp"
#include "app/cli/table.hpp"
#include "app/cli/task_commands.hpp"
#include "app/cli/task_wait.hpp"
#include "inventory/error.hpp"

namespace ironhold::cli {
// Named, not anonymous: the unity build compiles this file with the other commands', whose
// helpers have the same names.
namespace rollout_commands {

using nlohmann::json;

int whole_number(const Args& a, const char* option) {
  const std::string text = *a.get(option);
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw UsageError(std::string("--") + option + " must be a whole number");
}

std::string counts_text(const json& r) {
  std::string out;
  const json counts = r.value("counts", json::object());
  for (const char* state :
       {"succeeded", "updating", "gating", "pending", "failed", "skipped", "cancelled"}) {
    const int n = counts.value(state, 0);
    if (n == 0 && std::string(state) != "succeeded") continue;
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + state;
  }
  return out;
}

std::string show_text(const json& r) {
  const json image = r.value("image", json::object());
  std::vector<std::pair<std::string, std::string>> fields = {
      {"Id", field_text(r, "id")},
      {"Image", field_text(image, "name") + " (" + field_text(image, "component") + " " +
                    field_text(image, "version") + ")"},
      {"State", field_text(r, "state")},
      {"Halted because", field_text(r, "halt_reason")},
      {"Nodes", std::to_string(r.value("matched", 0)) + " in " +
                    std::to_string(r.value("batches", 0)) + " batches: " + counts_text(r)},
      {"Canary", field_text(r, "canary")},
      {"Batch size", field_text(r, "batch_size")},
      {"Per rack", field_text(r, "max_parallel_per_rack")},
      {"Max failures", field_text(r, "max_failures")},
      {"Health gate", field_text(r, "health_gate_seconds") + " s"},
      {"Requested by", field_text(r, "requested_by")},
      {"Created", field_text(r, "created_at")},
      {"Finished", field_text(r, "finished_at")}};
  std::string out = render_fields(fields);
  if (r.contains("nodes") && r["nodes"].is_array() && !r["nodes"].empty()) {
    Table nodes({"NODE", "RACK", "BATCH", "STATE", "FROM", "TASK", "ERROR"});
    for (const auto& n : r["nodes"])
      nodes.add_row({field_text(n, "node_name"), field_text(n, "rack"),
                     n.value("canary", false) ? "canary" : field_text(n, "batch"),
                     field_text(n, "state"), field_text(n, "from_version"),
                     field_text(n, "task_id"), field_text(n, "error")});
    out += '\n';
    out += nodes.render();
  }
  return out;
}

// The rollout is done moving: succeeded, halted, or aborted with nothing still running.
bool settled(const json& r) {
  const std::string state = field_text(r, "state");
  if (state == "succeeded" || state == "halted") return true;
  return state == "aborted" && !field_text(r, "finished_at").empty();
}

json follow(HttpClient& client, json rollout, bool terminal) {
  const std::string target = "/api/v1/firmware/rollouts/" + url_encode(field_text(rollout, "id"));
  std::string last;
  while (!settled(rollout)) {
    const std::string line = field_text(rollout, "state") + ": " + counts_text(rollout);
    if (terminal)
      std::cout << "\r\x1b[K" << terminal_safe(line) << std::flush;
    else if (line != last)
      std::cout << terminal_safe(line) << '\n';
    last = line;
    std::this_thread::sleep_for(std::chrono::seconds(1));
    rollout = client.get(target);
  }
  if (terminal) std::cout << "\r\x1b[K";
  return rollout;
}

int start(const Args& a) {
  if (!a.positional().empty()) throw UsageError("start takes options only");
  const auto image = a.get("image");
  const auto selector = a.get("selector");
  if (!image || !selector) throw UsageError("--image and --selector are required");
  json body = {{"image", *image}, {"selector", parse_selector(*selector)}};
  const std::pair<const char*, const char*> numbers[] = {
      {"canary", "canary"},
      {"batch-size", "batch_size"},
      {"max-parallel-per-rack", "max_parallel_per_rack"},
      {"max-failures", "max_failures"},
      {"health-gate", "health_gate_seconds"},
      {"timeout", "timeout_s"}};
  for (const auto& [option, field] : numbers)
    if (a.get(option)) body[field] = whole_number(a, option);
  if (a.flag("no-reset")) body["reset"] = false;
  if (const auto transfer = a.get("transfer"))
    body["transfer"] = *transfer;  // checked by the server
  HttpClient client = make_client(a);
  json rollout = client.post("/api/v1/firmware/rollouts", body);
  const OutputFormat format = output_format(a);
  if (format == OutputFormat::table)
    std::cout << "rollout " << field_text(rollout, "id") << ": " << rollout.value("matched", 0)
              << " nodes in " << rollout.value("batches", 0) << " batches\n";
  if (a.flag("wait")) {
    rollout =
        follow(client, std::move(rollout), format == OutputFormat::table && isatty(STDOUT_FILENO));
    if (format == OutputFormat::table) std::cout << show_text(rollout);
  }
  if (format == OutputFormat::json) print_json(rollout);
  if (a.flag("wait") && field_text(rollout, "state") != "succeeded") return kExitFailure;
  return kExitOk;
}

std::string one_id(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one ROLLOUT id");
  return a.positional()[0];
}

int show(const Args& a) {
  HttpClient client = make_client(a);
  const json r = client.get("/api/v1/firmware/rollouts/" + url_encode(one_id(a)));
  if (output_format(a) == OutputFormat::json)
    print_json(r);
  else
    std::cout << show_text(r);
  return kExitOk;
}

int list(const Args& a) {
  if (!a.positional().empty()) throw UsageError("list takes no arguments");
  HttpClient client = make_client(a);
  const json page = client.get("/api/v1/firmware/rollouts");
  if (output_format(a) == OutputFormat::json) {
    print_json(page.value("items", json::array()));
    return kExitOk;
  }
  Table table({"ID", "IMAGE", "STATE", "NODES", "CREATED"});
  for (const auto& r : page.value("items", json::array()))
    table.add_row({field_text(r, "id"), field_text(r.value("image", json::object()), "name"),
                   field_text(r, "state"), counts_text(r), field_text(r, "created_at")});
  std::cout << table.render();
  return kExitOk;
}

int steer(const Args& a, const char* verb) {
  HttpClient client = make_client(a);
  const json r = client.post("/api/v1/firmware/rollouts/" + url_encode(one_id(a)) + "/" + verb,
                             json::object());
  if (output_format(a) == OutputFormat::json)
    print_json(r);
  else
    std::cout << "rollout " << field_text(r, "id") << " " << field_text(r, "state") << ": "
              << counts_text(r) << '\n';
  return kExitOk;
}

int pause(const Args& a) {
  return steer(a, "pause");
}
int resume(const Args& a) {
  return steer(a, "resume");
}
int abort_rollout(const Args& a) {
  return steer(a, "abort");
}

constexpr Subcommand kCommands[] = {
    {"start", "",
     "Start a staged firmware rollout: canary nodes first, then batches, each node's update "
     "followed by a health gate.",
     &start},
    {"list", "", "List rollouts, newest first.", &list},
    {"show", "ROLLOUT", "Show a rollout with per-node progress.", &show},
    {"pause", "ROLLOUT", "Pause a rollout (updates under way end; no new one starts).", &pause},
    {"resume", "ROLLOUT", "Resume a paused or halted rollout.", &resume},
    {"abort", "ROLLOUT", "Abort a rollout (pending nodes and queued updates are cancelled).",
     &abort_rollout},
};

std::vector<Option> options_of(std::string_view name) {
  if (name != "start") return {};
  return {
      make_option("image", "IMAGE", "The firmware image's id (required)."),
      make_option("selector", "FILTERS",
                  "Which nodes: KEY=VALUE pairs by the node list's filter names, "
                  "comma-separated (required)."),
      make_option("canary", "N", "Nodes updated first, alone (default 1)."),
      make_option("batch-size", "N", "Nodes per batch after the canary (default 10)."),
      make_option("max-parallel-per-rack", "N", "Nodes of one rack updating at once (default 2)."),
      make_option("max-failures", "N", "Failed nodes tolerated before halting (default 0)."),
      make_option("health-gate", "SECONDS",
                  "How long each node must stay healthy on the new version (default 300)."),
      make_option("timeout", "SECONDS", "Each node's update task (default 3600)."),
      make_option("no-reset", "", "Leave firmware that waits for a reset staged."),
      make_option("transfer", "auto|pull|push",
                  "How images reach the BMCs (see ironhold firmware update; default auto)."),
      make_option("wait", "", "Follow the rollout; exit 0 only if it succeeded.")};
}

}  // namespace rollout_commands

int run_rollout_command(std::span<const std::string> argv) {
  using namespace rollout_commands;
  static const CommandGroup group{"rollout", "Staged firmware rollouts.", kCommands, &options_of};
  return run_command_group(group, argv);
}

}  // namespace ironhold::cli

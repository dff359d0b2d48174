// `ironhold power|boot|identify`: one task per node through POST /api/v1/nodes/{node}/<action>,
// reported as they are queued, or followed to the end with --wait.
#include <unistd.h>

#include <iostream>

#include "app/cli/client_options.hpp"
#include "app/cli/table.hpp"
#include "app/cli/task_commands.hpp"
#include "app/cli/task_wait.hpp"

namespace ironhold::cli {
namespace {

using nlohmann::json;

std::vector<Option> wait_options() {
  return {make_option("wait", "", "Follow the tasks until they end; exit 0 only if all succeeded."),
          make_option("timeout", "SECONDS",
                      "How long each task waits for the node to reach the state (server default "
                      "300).")};
}

// Creates one task per node; a node the server refuses is reported and counted, the others go on.
struct Created {
  std::vector<json> tasks;
  int refused = 0;
};

Created create_tasks(HttpClient& client, const std::vector<std::string>& nodes,
                     const std::string& action, const json& body) {
  Created out;
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

int report(const Args& a, HttpClient& client, Created created) {
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

int power(const Args& a) {
  const auto& words = a.positional();
  if (words.size() < 2)
    throw UsageError("give an action (on, off, cycle, reset, soft_off) and at least one NODE");
  json body = {{"action", words[0]}};
  add_timeout(a, body);
  HttpClient client = make_client(a);
  const std::vector<std::string> nodes(words.begin() + 1, words.end());
  return report(a, client, create_tasks(client, nodes, "power", body));
}

int boot(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one NODE");
  const auto device = a.get("device");
  if (!device) throw UsageError("--device is required (pxe, disk, cd or bios)");
  json body = {{"device", *device}, {"persistent", a.flag("persistent")}};
  if (auto mode = a.get("mode")) body["mode"] = *mode;
  HttpClient client = make_client(a);
  return report(a, client, create_tasks(client, a.positional(), "boot", body));
}

int identify(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one NODE");
  if (a.flag("on") == a.flag("off")) throw UsageError("give --on or --off");
  HttpClient client = make_client(a);
  return report(a, client,
                create_tasks(client, a.positional(), "identify", {{"on", a.flag("on")}}));
}

int run_action(std::span<const std::string> argv, const std::string& command,
               const std::string& usage, const std::string& summary, std::vector<Option> options,
               int (*body)(const Args&)) {
  return run_guarded(command, [&] {
    Args args(command, usage, summary, with_client_options(std::move(options)));
    args.parse(argv);
    if (args.help_requested()) {
      std::cout << args.help_text();
      return kExitOk;
    }
    return body(args);
  });
}

}  // namespace

int run_power_command(std::span<const std::string> argv) {
  return run_action(argv, "ironhold power", "on|off|cycle|reset|soft_off NODE...",
                    "Power nodes on, off, cycle, reset or soft_off: one task per node, sent once "
                    "and verified against the state the BMC or provider reports.",
                    wait_options(), &power);
}

int run_boot_command(std::span<const std::string> argv) {
  auto options = wait_options();
  options.push_back(make_option("device", "DEVICE", "Boot device: pxe, disk, cd or bios."));
  options.push_back(make_option("persistent", "", "Every boot, not only the next one."));
  options.push_back(make_option("mode", "MODE", "Boot mode: uefi or legacy (default: unchanged)."));
  return run_action(argv, "ironhold boot", "NODE", "Set a node's boot device (a task).",
                    std::move(options), &boot);
}

int run_identify_command(std::span<const std::string> argv) {
  auto options = wait_options();
  options.erase(options.begin() + 1);  // no state to wait for
  options.push_back(make_option("on", "", "Turn the identify LED on."));
  options.push_back(make_option("off", "", "Turn the identify LED off."));
  return run_action(argv, "ironhold identify", "NODE",
                    "Turn a node's identify LED on or off (a task).", std::move(options),
                    &identify);
}

}  // namespace ironhold::cli

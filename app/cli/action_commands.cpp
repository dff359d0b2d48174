// `ironhold power|boot|identify`: one task per node through POST /api/v1/nodes/{node}/<action>,
// reported as they are queued, or followed to the end with --wait.
#include <unistd.h>

#include <iostream>

#include "app/cli/client_options.hpp"
#include "app/cli/node_tasks.hpp"
#include "app/cli/table.hpp"
#include "app/cli/task_commands.hpp"
#include "app/cli/task_wait.hpp"

namespace ironhold::cli {
namespace {

using nlohmann::json;

int power(const Args& a) {
  const auto& words = a.positional();
  if (words.size() < 2)
    throw UsageError("give an action (on, off, cycle, reset, soft_off) and at least one NODE");
  json body = {{"action", words[0]}};
  add_timeout(a, body);
  HttpClient client = make_client(a);
  const std::vector<std::string> nodes(words.begin() + 1, words.end());
  return report_tasks(a, client, create_node_tasks(client, nodes, "power", body));
}

int boot(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one NODE");
  const auto device = a.get("device");
  if (!device) throw UsageError("--device is required (pxe, disk, cd or bios)");
  json body = {{"device", *device}, {"persistent", a.flag("persistent")}};
  if (auto mode = a.get("mode")) body["mode"] = *mode;
  HttpClient client = make_client(a);
  return report_tasks(a, client, create_node_tasks(client, a.positional(), "boot", body));
}

int identify(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one NODE");
  if (a.flag("on") == a.flag("off")) throw UsageError("give --on or --off");
  HttpClient client = make_client(a);
  return report_tasks(
      a, client, create_node_tasks(client, a.positional(), "identify", {{"on", a.flag("on")}}));
}

int reprovision(const Args& a) {
  if (a.positional().empty()) throw UsageError("give at least one NODE");
  json body = json::object();
  if (auto image = a.get("image")) body["image"] = *image;
  if (auto mac = a.get("mac")) body["mac"] = *mac;
  if (auto via = a.get("via")) {
    if (*via != "pxe" && *via != "virtual-media")
      throw UsageError("--via must be pxe or virtual-media, not \"" + *via + "\"");
    body["via"] = *via;
  }
  if (a.flag("admin-password-stdin")) {
    std::string line;
    if (!std::getline(std::cin, line)) throw UsageError("--admin-password-stdin: nothing on stdin");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    body["admin_password"] = line;
  }
  add_timeout(a, body);
  HttpClient client = make_client(a);
  return report_tasks(a, client, create_node_tasks(client, a.positional(), "reprovision", body));
}

// The action words after the options: "power cycle", "boot pxe", "identify on", "inspect",
// "reprovision [IMAGE]".
std::pair<std::string, json> bulk_action_of(const std::vector<std::string>& words) {
  if (words.empty())
    throw UsageError(
        "give the action: power ACTION, boot DEVICE, identify on|off, inspect or reprovision "
        "[IMAGE]");
  const std::string& action = words[0];
  auto need = [&](std::size_t n, const char* what) {
    if (words.size() != n)
      throw UsageError(std::string("usage: ironhold bulk --selector S ") + what);
  };
  if (action == "power") {
    need(2, "power on|off|cycle|reset|soft_off");
    return {action, {{"action", words[1]}}};
  }
  if (action == "boot") {
    need(2, "boot pxe|disk|cd|bios");
    return {action, {{"device", words[1]}}};
  }
  if (action == "identify") {
    need(2, "identify on|off");
    if (words[1] != "on" && words[1] != "off") throw UsageError("identify takes on or off");
    return {action, {{"on", words[1] == "on"}}};
  }
  if (action == "inspect") {
    need(1, "inspect");
    return {action, json::object()};
  }
  if (action == "reprovision") {
    if (words.size() > 2) throw UsageError("usage: ironhold bulk --selector S reprovision [IMAGE]");
    json p = json::object();
    if (words.size() == 2) p["image"] = words[1];
    return {action, p};
  }
  if (action == "credentials") {
    // Every matched node's BMC password rotated, each to a password made for it.
    need(2, "credentials rotate");
    if (words[1] != "rotate") throw UsageError("credentials takes rotate");
    return {action, json::object()};
  }
  if (action == "bios") {
    // The model's BIOS baseline, on every node matched: drift put right in bulk.
    need(2, "bios from-baseline");
    if (words[1] != "from-baseline") throw UsageError("bios takes from-baseline");
    return {action, {{"from_baseline", true}}};
  }
  throw UsageError("unknown action \"" + action +
                   "\": power, boot, identify, inspect, reprovision, bios from-baseline or "
                   "credentials rotate");
}

int bulk(const Args& a) {
  const auto selector_text = a.get("selector");
  if (!selector_text) throw UsageError("--selector is required (e.g. rack=R12,health=critical)");
  const auto [action, parameters] = bulk_action_of(a.positional());
  json body = {{"selector", parse_selector(*selector_text)},
               {"action", action},
               {"parameters", parameters},
               {"dry_run", a.flag("dry-run")}};
  if (auto n = a.get("max-parallel")) {
    try {
      body["max_parallel"] = std::stoi(*n);
    } catch (const std::exception&) {
      throw UsageError("--max-parallel must be a whole number");
    }
  }
  HttpClient client = make_client(a);
  const json answer = client.post("/api/v1/actions", body);
  const OutputFormat format = output_format(a);
  if (a.flag("dry-run")) {
    if (format == OutputFormat::json) {
      print_json(answer);
    } else {
      std::cout << answer.value("matched", 0) << " nodes match:\n";
      for (const auto& n : answer.value("nodes", json::array()))
        std::cout << "  " << terminal_safe(n.value("name", "")) << '\n';
    }
    return kExitOk;
  }
  if (format == OutputFormat::table)
    std::cout << "bulk " << answer.value("bulk_id", "") << ": " << answer.value("matched", 0)
              << " nodes matched\n";
  CreatedTasks created;
  for (const auto& id : answer.value("tasks", json::array()))
    created.tasks.push_back(client.get("/api/v1/tasks/" + id.get<std::string>()));
  return report_tasks(a, client, std::move(created));
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

int run_reprovision_command(std::span<const std::string> argv) {
  auto options = wait_options();
  options.push_back(
      make_option("image", "IMAGE",
                  "The image to install: a cloud image id (default: the one it runs), or for an "
                  "owned server the URL of an iPXE script or netboot directory, or with --via "
                  "virtual-media the id of a boot image (default: its last one)."));
  options.push_back(make_option(
      "via", "pxe|virtual-media",
      "How an owned server boots its installer: over PXE (default), or from a boot image its "
      "BMC mounts as a virtual CD (Redfish; docs/provisioning.md)."));
  options.push_back(make_option(
      "mac", "MAC", "An owned server's PXE NIC, when its inventory has no MAC (IPMI)."));
  options.push_back(make_option("admin-password-stdin", "",
                                "Read the new admin password from the first line of stdin "
                                "(providers that set one)."));
  return run_action(
      argv, "ironhold reprovision", "NODE...",
      "Reprovision nodes (one task each): cloud instances are rebuilt by their provider, owned "
      "servers boot their installer over PXE or from virtual media (docs/provisioning.md).",
      std::move(options), &reprovision);
}

int run_bulk_command(std::span<const std::string> argv) {
  auto options = wait_options();
  options.erase(options.begin() + 1);
  options.push_back(
      make_option("selector", "FILTERS",
                  "Which nodes: KEY=VALUE pairs by the node list's filter names, "
                  "comma-separated (rack=R12,health=critical; a key twice means either)."));
  options.push_back(
      make_option("max-parallel", "N", "At most N of the tasks at once (default 8)."));
  options.push_back(make_option("dry-run", "", "Only list the nodes the selector matches."));
  return run_action(argv, "ironhold bulk", "ACTION [ARGS]",
                    "One action on every node a selector matches: power ACTION, boot DEVICE, "
                    "identify on|off, inspect, reprovision [IMAGE], bios from-baseline or "
                    "credentials rotate.",
                    std::move(options), &bulk);
}

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

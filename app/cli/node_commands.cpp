// `ironhold node`: the subcommand table, each subcommand's options, and the commands that talk
// to /api/v1/nodes (import lives in node_import.cpp, the pure request/view pieces in
// node_requests.cpp).
#include "app/cli/node_commands.hpp"

#include <chrono>
#include <iostream>
#include <set>

#include "app/cli/client_options.hpp"
#include "app/cli/http_client.hpp"
#include "app/cli/node_internal.hpp"
#include "app/cli/table.hpp"
#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::cli {
namespace {

using nlohmann::json;
using node::detail::kNodes;
using node::detail::one_positional;

std::string node_path(std::string_view node) {
  return std::string(kNodes) + "/" + url_encode(node);
}

std::optional<std::string> read_password(const Args& args) {
  const bool from_stdin = args.flag("password-stdin");
  if (from_stdin && args.given("password"))
    throw UsageError("give --password or --password-stdin, not both");
  if (!from_stdin) return args.get("password");
  std::string line;
  if (!std::getline(std::cin, line)) throw UsageError("--password-stdin: nothing on stdin");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace

namespace node {

std::vector<Option> selector_options() {
  std::vector<Option> o = {
      make_option("source", "SOURCE", "Only nodes from this source: bmc or cloud."),
      make_option("driver", "DRIVER", "Only nodes with this driver."),
      make_option("health", "HEALTH", "Only this health: ok, warning, critical or unknown."),
      make_option("power-state", "STATE",
                  "Only this power state: on, off, transitioning or unknown."),
      make_option("lifecycle", "STATE", "Only this lifecycle state (available, deployed, ...)."),
      make_option("maintenance", "BOOL", "Only nodes in (true) or out of (false) maintenance."),
      make_option("tag", "KEY:VALUE...", "Only nodes with this tag."),
      make_option("site", "SITE", "Only nodes at this site."),
      make_option("rack", "RACK", "Only nodes in this rack."),
      make_option("search", "TEXT", "Only nodes whose name contains TEXT."),
      make_option("project", "PROJECT", "Only nodes of this project (a,b for several)."),
  };
  o[9].short_name = 'q';
  return o;
}

}  // namespace node

namespace {

std::vector<Option> list_options() {
  std::vector<Option> o = node::selector_options();
  o.push_back(make_option("sort", "FIELD",
                          "name, health, power_state, last_seen or created_at; - reverses."));
  o.push_back(make_option("limit", "N",
                          "Show at most N nodes (default: all of them, fetched page by page)."));
  return o;
}

std::vector<Option> enroll_options() {
  return {
      make_option("driver", "DRIVER", "Driver: redfish, ipmi or auto (required)."),
      make_option("endpoint", "URL",
                  "BMC address (required): https://host[:port] for redfish, ipmi://host[:port] for "
                  "ipmi; a bare host only with --driver auto."),
      make_option("username", "USER", "BMC user name."),
      make_option("password", "PASSWORD", "BMC password (other users see it in ps: prefer stdin)."),
      make_option("password-stdin", "", "Read the BMC password from the first line of stdin."),
      make_option("project", "PROJECT",
                  "The project it belongs to (default: yours, if you have one; else default)."),
      make_option("site", "SITE", "Site (data centre)."),
      make_option("rack", "RACK", "Rack."),
      make_option("unit", "N", "Rack unit."),
      make_option("tag", "KEY=VALUE...", "Tag the node."),
      make_option("option", "KEY=VALUE...",
                  "Driver option: tls=pin|ca|insecure, ca_bundle=@FILE.pem, cipher_suites=17,3, "
                  "privilege=operator|admin, kg=HEX."),
  };
}

std::vector<Option> set_options() {
  return {
      make_option("name", "NAME", "Rename the node."),
      make_option("project", "PROJECT", "Move it to another project (an admin of both)."),
      make_option("driver", "DRIVER", "New driver (with --endpoint when the protocol changes)."),
      make_option("endpoint", "URL", "New BMC address (as for enroll)."),
      make_option("username", "USER", "BMC user name (with a password: credentials are replaced)."),
      make_option("password", "PASSWORD", "BMC password (other users see it in ps: prefer stdin)."),
      make_option("password-stdin", "", "Read the BMC password from the first line of stdin."),
      make_option("site", "SITE", "Site; an empty value removes it."),
      make_option("rack", "RACK", "Rack; an empty value removes it."),
      make_option("unit", "N", "Rack unit; an empty value removes it."),
      make_option("tag", "KEY=VALUE...", "Add or change a tag."),
      make_option("untag", "KEY...", "Remove a tag."),
      make_option("option", "KEY=VALUE...", "Add or change a driver option (as for enroll)."),
      make_option("unset-option", "KEY...", "Remove a driver option."),
      make_option("maintenance", "on|off", "Put the node in or out of maintenance."),
      make_option("reason", "TEXT", "Why the node is in maintenance."),
      make_option("gpus-expected", "N|seen",
                  "GPUs to expect from now on (gpu_missing alerts below it); seen: the count of "
                  "the last inspection."),
  };
}

std::vector<Option> rm_options() {
  return {
      make_option("purge", "", "Delete the node and its history instead of retiring it (admin).")};
}
std::vector<Option> no_options() {
  return {};
}

// Flags are parsed by pure functions that throw ironhold::Error; on the command line those are
// usage mistakes (exit 2), not failures.
template <class F>
auto from_flags(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

void print_node(const Args& a, const json& node) {
  if (output_format(a) == OutputFormat::json)
    print_json(node);
  else
    std::cout << node::show_text(node);
}

std::vector<json> fetch_all(HttpClient& client, const std::string& query,
                            std::optional<std::size_t> want) {
  std::vector<json> items;
  std::set<std::string> cursors;
  std::string target = std::string(kNodes) + query;
  while (true) {
    const json page = client.get(target);
    if (!page.is_object() || !page.contains("items") || !page["items"].is_array())
      throw Error(ErrorKind::internal, "the server's node list has no \"items\" array");
    for (const auto& item : page["items"]) {
      if (want && items.size() >= *want) return items;
      items.push_back(item);
    }
    if (want && items.size() >= *want) return items;
    const auto next = page.find("next");
    if (next == page.end() || !next->is_string() || next->get<std::string>().empty()) return items;
    // A server bug that hands back the same cursor would otherwise loop for ever.
    if (!cursors.insert(next->get<std::string>()).second)
      throw Error(ErrorKind::internal, "the server returned the same page cursor twice");
    target = util::concat(kNodes, "?cursor=", url_encode(next->get<std::string>()));
  }
}

int cmd_list(const Args& a) {
  const OutputFormat format = output_format(a);
  const std::string query = from_flags([&] { return node::list_query(a); });
  std::optional<std::size_t> want;
  if (auto limit = a.get("limit"))
    want = static_cast<std::size_t>(node::detail::parse_int(*limit, "--limit"));
  if (!a.positional().empty()) throw UsageError("node list takes no arguments");
  HttpClient client = make_client(a);
  const std::vector<json> items = fetch_all(client, query, want);
  if (format == OutputFormat::json) {
    print_json(json(items));
    return kExitOk;
  }
  if (items.empty()) {
    std::cerr << "no nodes found\n";
    return kExitOk;
  }
  Table table(
      {"NAME", "HEALTH", "POWER", "DRIVER", "ENDPOINT", "LOCATION", "LIFECYCLE", "LAST SEEN"});
  const auto now = std::chrono::system_clock::now();
  for (const auto& n : items) table.add_row(node::list_row(n, now));
  std::cout << table.render();
  return kExitOk;
}

int cmd_show(const Args& a) {
  const std::string name = one_positional(a, "NODE");
  output_format(a);
  HttpClient client = make_client(a);
  print_node(a, client.get(node_path(name)));
  return kExitOk;
}

int cmd_enroll(const Args& a) {
  output_format(a);
  const auto password = read_password(a);
  const json body = from_flags([&] { return node::enroll_body(a, password); });
  HttpClient client = make_client(a);
  print_node(a, client.post(kNodes, body));
  return kExitOk;
}

int cmd_set(const Args& a) {
  const std::string name = one_positional(a, "NODE");
  output_format(a);
  const auto password = read_password(a);
  const json body = from_flags([&] { return node::patch_body(a, password); });
  HttpClient client = make_client(a);
  print_node(a, client.patch(node_path(name), body));
  return kExitOk;
}

int cmd_rm(const Args& a) {
  const std::string name = one_positional(a, "NODE");
  const OutputFormat format = output_format(a);
  const bool purge = a.flag("purge");
  HttpClient client = make_client(a);
  client.del(node_path(name) + (purge ? "?purge=true" : ""));
  const char* result = purge ? "purged" : "retired";
  if (format == OutputFormat::json)
    print_json({{"node", name}, {"result", result}});
  else
    std::cout << result << ' ' << terminal_safe(name) << '\n';
  return kExitOk;
}

struct Command {
  std::string_view name;
  std::string_view usage;
  std::string_view summary;
  std::vector<Option> (*options)();
  int (*run)(const Args&);
};

constexpr Command kNodeCommands[] = {
    {"list", "", "List nodes, filtered and sorted.", &list_options, &cmd_list},
    {"show", "NODE", "Show one node (by name or id).", &no_options, &cmd_show},
    {"enroll", "NAME", "Enroll an owned server by its BMC.", &enroll_options, &cmd_enroll},
    {"set", "NODE", "Change a node's settings, tags, options or maintenance.", &set_options,
     &cmd_set},
    {"rm", "NODE", "Retire a node (or, with --purge, delete it).", &rm_options, &cmd_rm},
    {"import", "FILE.csv|-",
     "Enroll nodes from a CSV file (- for stdin). Its header row names the columns: name, "
     "driver, endpoint, username, password, site, rack, unit, tags (k=v;k2=v2), options (a JSON "
     "object), tls, ca_bundle, cipher_suites (17;3), privilege, kg and tag:KEY. Empty cells are "
     "left out; every row is reported, and the exit status is 1 if any row failed.",
     &no_options, &node::detail::cmd_import},
};

const Command* find_command(std::string_view name) {
  for (const auto& c : kNodeCommands)
    if (c.name == name) return &c;
  return nullptr;
}

std::string node_help() {
  std::string out =
      "Usage: ironhold node COMMAND [OPTIONS]\n\nManage nodes: owned servers (through their "
      "BMCs) and cloud instances.\n\nCommands:\n";
  for (const auto& c : kNodeCommands) {
    out += "  " + std::string(c.name) + std::string(8 - c.name.size(), ' ');
    out += std::string(c.summary.substr(0, c.summary.find(". ") == std::string_view::npos
                                               ? c.summary.size()
                                               : c.summary.find(". ") + 1)) +
           '\n';
  }
  return out + "\nRun 'ironhold node COMMAND --help' for a command's options.\n";
}

}  // namespace

Args node::make_args(std::string_view subcommand) {
  const Command* c = find_command(subcommand);
  if (!c) throw UsageError("unknown node command \"" + std::string(subcommand) + "\"");
  return Args("ironhold node " + std::string(c->name), std::string(c->usage),
              std::string(c->summary), with_client_options(c->options()));
}

int run_node_command(std::span<const std::string> argv) {
  if (argv.empty()) {
    std::cerr << node_help();
    return kExitUsage;
  }
  if (argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
    std::cout << node_help();
    return kExitOk;
  }
  const Command* c = find_command(argv[0]);
  if (!c) {
    std::cerr << "error: unknown node command \"" << terminal_safe(argv[0])
              << "\"\nrun 'ironhold node --help' for the commands\n";
    return kExitUsage;
  }
  const std::string command = "ironhold node " + std::string(c->name);
  return run_guarded(command, [&] {
    Args args = node::make_args(c->name);
    args.parse(argv.subspan(1));
    if (args.help_requested()) {
      std::cout << args.help_text();
      return kExitOk;
    }
    return c->run(args);
  });
}

}  // namespace ironhold::cli

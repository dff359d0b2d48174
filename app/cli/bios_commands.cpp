// `ironhold bios show|history|set|drift|baseline`: the CLI over /api/v1/nodes/{node}/bios, the BIOS
// task (POST /api/v1/nodes/{node}/bios), the per-model BIOS baselines and their drift report.
#include <cstdio>
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
namespace bios_commands {

using nlohmann::json;

std::string value_text(const json& v) {
  if (v.is_null()) return "-";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// "Name=Value": numbers and true/false become JSON numbers and booleans, anything else a string
// ("Name=\"1\"" keeps a quoted value a string).
std::pair<std::string, json> assignment(const std::string& word) {
  const auto eq = word.find('=');
  if (eq == std::string::npos || eq == 0) throw UsageError("\"" + word + "\" is not NAME=VALUE");
  const std::string name = word.substr(0, eq);
  const std::string text = word.substr(eq + 1);
  json value = json::parse(text, nullptr, false);
  if (value.is_discarded() || value.is_structured() || value.is_null()) value = text;
  return {name, value};
}

// A BIOS document's (or a baseline's) "attributes" as a NAME/VALUE table.
void print_attributes(const json& document) {
  Table table({"ATTRIBUTE", "VALUE"});
  const json attributes = document.value("attributes", json::object());  // items() only borrows it
  for (const auto& [name, value] : attributes.items())
    table.add_row({terminal_safe(name), terminal_safe(value_text(value))});
  std::cout << table.render();
}

int show(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one NODE");
  HttpClient client = make_client(a);
  std::string target = "/api/v1/nodes/" + url_encode(a.positional()[0]) + "/bios";
  if (auto as_of = a.get("as-of")) target += "?as_of=" + url_encode(*as_of);
  const json bios = client.get(target);
  if (output_format(a) == OutputFormat::json) {
    print_json(bios);
    return kExitOk;
  }
  std::cout << render_fields({{"registry", value_text(bios.value("registry", json()))},
                              {"since", value_text(bios.value("since", json()))},
                              {"apply times", value_text(bios.value("apply_times", json()))},
                              {"boot order", value_text(bios.value("boot_order", json()))}});
  print_attributes(bios);
  return kExitOk;
}

int history(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one NODE");
  HttpClient client = make_client(a);
  const json page =
      client.get("/api/v1/nodes/" + url_encode(a.positional()[0]) + "/bios?history=true");
  if (output_format(a) == OutputFormat::json) {
    print_json(page);
    return kExitOk;
  }
  Table table({"SINCE", "UNTIL", "ATTRIBUTE", "FROM", "TO"});
  for (const auto& v : page.value("items", json::array())) {
    const json changes = v.value("changes", json());
    if (!changes.is_array()) {
      table.add_row({value_text(v["since"]), value_text(v["until"]), "(first read)", "", ""});
      continue;
    }
    for (const auto& c : changes)
      table.add_row({value_text(v["since"]), value_text(v["until"]),
                     terminal_safe(value_text(c["attribute"])),
                     terminal_safe(value_text(c["from"])), terminal_safe(value_text(c["to"]))});
    if (v.value("boot_order_changed", false))
      table.add_row({value_text(v["since"]), value_text(v["until"]), "(boot order)", "",
                     terminal_safe(value_text(v["boot_order"]))});
  }
  std::cout << table.render();
  return kExitOk;
}

int set(const Args& a) {
  const auto& words = a.positional();
  std::vector<std::string> nodes;
  json attributes = json::object();
  for (const auto& w : words) {
    if (w.find('=') == std::string::npos) {
      nodes.push_back(w);
      continue;
    }
    auto [name, value] = assignment(w);
    attributes[name] = value;
  }
  if (nodes.empty()) throw UsageError("give at least one NODE");
  json body = json::object();
  if (!attributes.empty()) body["attributes"] = attributes;
  if (a.flag("from-baseline")) body["from_baseline"] = true;
  if (auto order = a.get("boot-order")) {
    json list = json::array();
    std::size_t start = 0;
    while (start <= order->size()) {
      const auto comma = order->find(',', start);
      list.push_back(
          order->substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    body["boot_order"] = list;
  }
  if (body.empty()) throw UsageError("give NAME=VALUE attributes, --from-baseline or --boot-order");
  if (auto apply_time = a.get("apply-time")) body["apply_time"] = *apply_time;
  if (a.flag("no-reset")) body["reset"] = false;
  add_timeout(a, body);
  HttpClient client = make_client(a);
  return report_tasks(a, client, create_node_tasks(client, nodes, "bios", body));
}

int drift(const Args& a) {
  if (!a.positional().empty()) throw UsageError("drift takes no arguments");
  HttpClient client = make_client(a);
  if (a.flag("csv")) {
    std::fflush(stdout);
    client.download("/api/v1/bios/drift?format=csv", stdout);
    return kExitOk;
  }
  const json report = client.get("/api/v1/bios/drift");
  if (output_format(a) == OutputFormat::json) {
    print_json(report);
    return kExitOk;
  }
  std::cout << report.value("nodes_compliant", 0) << " of " << report.value("nodes_checked", 0)
            << " nodes with a BIOS baseline match it\n";
  Table table({"NODE", "MODEL", "ATTRIBUTE", "EXPECTED", "ACTUAL", "STATUS"});
  for (const auto& d : report.value("items", json::array()))
    table.add_row({terminal_safe(value_text(d["node_name"])), terminal_safe(value_text(d["model"])),
                   terminal_safe(value_text(d["attribute"])),
                   terminal_safe(value_text(d["expected"])), terminal_safe(value_text(d["actual"])),
                   value_text(d["status"])});
  std::cout << table.render();
  return report.value("items", json::array()).empty() ? kExitOk : 1;
}

int baseline(const Args& a) {
  const auto& words = a.positional();
  if (words.empty()) throw UsageError("give a MODEL (and NAME=VALUE attributes to set it)");
  HttpClient client = make_client(a);
  const std::string target = "/api/v1/bios/baselines/" + url_encode(words[0]);
  json result;
  if (a.flag("delete")) {
    client.del(target);
    if (output_format(a) != OutputFormat::json)
      std::cout << "deleted the BIOS baseline of " << terminal_safe(words[0]) << '\n';
    return kExitOk;
  }
  if (words.size() == 1) {
    result = client.get(target);
  } else {
    json attributes = json::object();
    for (std::size_t i = 1; i < words.size(); ++i) {
      auto [name, value] = assignment(words[i]);
      attributes[name] = value;
    }
    result = client.put(target, {{"attributes", attributes}});
  }
  if (output_format(a) == OutputFormat::json) {
    print_json(result);
    return kExitOk;
  }
  print_attributes(result);
  return kExitOk;
}

constexpr Subcommand kCommands[] = {
    {"show", "NODE", "A node's BIOS attributes as last read (--as-of: as they were then).", &show},
    {"history", "NODE", "Every version of a node's BIOS settings, with what changed.", &history},
    {"set", "NODE... NAME=VALUE...",
     "Set BIOS attributes (one task per node): written to the BIOS settings object, applied by a "
     "reset, read back until they show.",
     &set},
    {"drift", "", "Nodes whose BIOS differs from their model's baseline (exit 1 when any does).",
     &drift},
    {"baseline", "MODEL [NAME=VALUE...]",
     "Show a model's BIOS baseline, or set it to the attributes given (--delete removes it).",
     &baseline},
};

std::vector<Option> options_of(std::string_view name) {
  if (name == "show")
    return {make_option("as-of", "TIME", "The settings current at this RFC 3339 time.")};
  if (name == "drift") return {make_option("csv", "", "The report as CSV, for auditors.")};
  if (name == "baseline") return {make_option("delete", "", "Remove the model's baseline.")};
  if (name == "set") {
    auto options = wait_options();
    options[1] =
        make_option("timeout", "SECONDS",
                    "How long the BIOS may take to show the values (server default 1800).");
    options.push_back(make_option("from-baseline", "",
                                  "Set the node model's BIOS baseline (NAME=VALUE given win)."));
    options.push_back(make_option("boot-order", "REF,REF,...",
                                  "The System's boot order, as boot option references."));
    options.push_back(make_option("apply-time", "OnReset|Immediate",
                                  "When the BMC applies them (default OnReset)."));
    options.push_back(make_option(
        "no-reset", "", "Leave them pending until the node's next reset (then not verified)."));
    return options;
  }
  return {};
}

}  // namespace bios_commands

int run_bios_command(std::span<const std::string> argv) {
  using namespace bios_commands;
  static const CommandGroup group{
      "bios", "BIOS settings of owned servers, their history, baselines and drift.", kCommands,
      &options_of};
  return run_command_group(group, argv);
}

}  // namespace ironhold::cli

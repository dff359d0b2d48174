// `ironhold gpu-model ...`: list the GPU catalogue, set a model, map a driver's string to it,
// and see the strings nodes report that nothing maps yet.
#include "app/cli/gpu_model_commands.hpp"

#include <iostream>
#include <sstream>

#include "app/cli/client_options.hpp"
#include "app/cli/subcommands.hpp"
#include "app/cli/table.hpp"
#include "app/cli/task_wait.hpp"

namespace ironhold::cli {
// Named, not anonymous: the unity build compiles this file with the other commands'.
namespace gpu_model_commands {

using nlohmann::json;

std::string model_path(const std::string& name) {
  return "/api/v1/gpu-models/" + url_encode(name);
}

std::string number_text(const json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return "";
  std::ostringstream out;
  out << it->get<double>();
  return out.str();
}

std::string join_aliases(const json& model) {
  std::string out;
  for (const auto& a : model.value("aliases", json::array())) {
    if (!out.empty()) out += ", ";
    if (a.value("kind", "") == "instance_type") out += "type:";
    out += a.value("alias", "");
  }
  return out;
}

void print_change(const Args& a, const json& answer, const std::string& what) {
  if (output_format(a) == OutputFormat::json) {
    print_json(answer);
    return;
  }
  std::cout << what << "; " << answer.value("nodes_remapped", 0LL) << " node(s) re-resolved\n";
}

int list(const Args& a) {
  if (!a.positional().empty()) throw UsageError("list takes no arguments");
  HttpClient client = make_client(a);
  const json page = client.get("/api/v1/gpu-models");
  if (output_format(a) == OutputFormat::json) {
    print_json(page.value("items", json::array()));
    return kExitOk;
  }
  Table table({"NAME", "VENDOR", "FAMILY", "MEMORY_GIB", "FORM", "NODES", "GPUS", "ALIASES"});
  for (const auto& m : page.value("items", json::array()))
    table.add_row({field_text(m, "name"), field_text(m, "vendor"), field_text(m, "family"),
                   number_text(m, "memory_gib"), field_text(m, "form_factor"),
                   number_text(m, "nodes"), number_text(m, "gpus"), join_aliases(m)});
  std::cout << table.render();
  return kExitOk;
}

int show(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one MODEL name");
  HttpClient client = make_client(a);
  print_json(client.get(model_path(a.positional()[0])));
  return kExitOk;
}

int set(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one MODEL name");
  const std::string name = a.positional()[0];
  HttpClient client = make_client(a);
  // Fields not given keep what the catalogue has (PUT replaces, so start from the current model).
  json body = json::object();
  const HttpResponse current = client.send("GET", model_path(name));
  if (current.status == 200) {
    const json existing = json::parse(current.body, nullptr, false);
    for (const char* key : {"vendor", "family", "model", "memory_gib", "form_factor"})
      if (existing.is_object() && existing.contains(key)) body[key] = existing[key];
  }
  const std::pair<const char*, const char*> fields[] = {{"vendor", "vendor"},
                                                        {"family", "family"},
                                                        {"model", "model"},
                                                        {"form-factor", "form_factor"}};
  for (const auto& [option, key] : fields)
    if (const auto value = a.get(option)) body[key] = *value;
  if (const auto memory = a.get("memory-gib")) {
    try {
      body["memory_gib"] = std::stod(*memory);
    } catch (const std::exception&) {
      throw UsageError("--memory-gib takes a number of GiB");
    }
  }
  if (const auto rename = a.get("rename")) body["name"] = *rename;
  const json answer = client.put(model_path(name), body);
  print_change(a, answer, "GPU model " + terminal_safe(field_text(answer, "name")) + " set");
  return kExitOk;
}

int remove(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one MODEL name");
  HttpClient client = make_client(a);
  const json answer = client.del(model_path(a.positional()[0]));
  print_change(a, answer, "GPU model " + terminal_safe(a.positional()[0]) + " removed");
  return kExitOk;
}

std::string alias_kind(const Args& a) {
  return a.flag("instance-type") ? "instance_type" : "gpu";
}

int alias(const Args& a) {
  if (a.positional().size() != 2) throw UsageError("give the MODEL and the STRING it stands for");
  HttpClient client = make_client(a);
  const json answer = client.post(model_path(a.positional()[0]) + "/aliases",
                                  {{"kind", alias_kind(a)}, {"alias", a.positional()[1]}});
  print_change(a, answer,
               "\"" + terminal_safe(a.positional()[1]) + "\" maps to " +
                   terminal_safe(field_text(answer, "name")));
  return kExitOk;
}

int unalias(const Args& a) {
  if (a.positional().size() != 2) throw UsageError("give the MODEL and the alias STRING");
  HttpClient client = make_client(a);
  const json answer = client.del(model_path(a.positional()[0]) + "/aliases?kind=" + alias_kind(a) +
                                 "&alias=" + url_encode(a.positional()[1]));
  print_change(a, answer, "alias \"" + terminal_safe(a.positional()[1]) + "\" removed");
  return kExitOk;
}

int unmapped(const Args& a) {
  if (!a.positional().empty()) throw UsageError("unmapped takes no arguments");
  HttpClient client = make_client(a);
  const json page = client.get("/api/v1/gpu-models/unmapped");
  if (output_format(a) == OutputFormat::json) {
    print_json(page.value("items", json::array()));
    return kExitOk;
  }
  Table table({"NAME", "NODES", "BMC", "CLOUD", "DRIVERS", "INSTANCE_TYPES", "EXAMPLES"});
  const auto joined = [](const json& list) {
    std::string out;
    for (const auto& item : list)
      if (item.is_string()) out += (out.empty() ? "" : ",") + item.get<std::string>();
    return out;
  };
  for (const auto& u : page.value("items", json::array())) {
    const json source = u.value("source", json::object());
    table.add_row({field_text(u, "name"), number_text(u, "nodes"), number_text(source, "bmc"),
                   number_text(source, "cloud"), joined(u.value("drivers", json::array())),
                   joined(u.value("instance_types", json::array())),
                   joined(u.value("example_nodes", json::array()))});
  }
  std::cout << table.render();
  return kExitOk;
}

constexpr Subcommand kCommands[] = {
    {"list", "", "List the GPU catalogue: canonical models, their aliases, nodes and GPUs.", &list},
    {"show", "MODEL", "Show one GPU model as JSON.", &show},
    {"set", "MODEL",
     "Create or change a GPU model (fields not given stay as they are); --rename renames it.",
     &set},
    {"rm", "MODEL", "Remove a GPU model and its aliases; its nodes fall back to raw names.",
     &remove},
    {"alias", "MODEL STRING",
     "Map a GPU name a BMC or provider reports (or with --instance-type, an instance type or "
     "flavor; a final '*' makes a prefix) to the model.",
     &alias},
    {"unalias", "MODEL STRING", "Remove an alias of the model.", &unalias},
    {"unmapped", "", "List the GPU names nodes report that no alias maps yet.", &unmapped},
};

std::vector<Option> options_of(std::string_view name) {
  if (name == "set")
    return {make_option("vendor", "VENDOR", "The vendor: NVIDIA, AMD, ..."),
            make_option("family", "FAMILY", "The architecture: Hopper, Ampere, ..."),
            make_option("model", "MODEL", "The card: H100, A100, ..."),
            make_option("memory-gib", "GIB", "Memory per GPU in GiB."),
            make_option("form-factor", "SXM|PCIe|OAM|other", "How the card is mounted."),
            make_option("rename", "NAME", "A new canonical name for the model.")};
  if (name == "alias" || name == "unalias")
    return {make_option("instance-type", "",
                        "The string is a cloud instance type or flavor, not a GPU name.")};
  return {};
}

}  // namespace gpu_model_commands

int run_gpu_model_command(std::span<const std::string> argv) {
  using namespace gpu_model_commands;
  static const CommandGroup group{"gpu-model",
                                  "The GPU catalogue: one canonical name per GPU model, whatever "
                                  "a BMC or a provider calls it.",
                                  kCommands, &options_of};
  return run_command_group(group, argv);
}

}  // namespace ironhold::cli

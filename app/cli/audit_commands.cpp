#include "app/cli/audit_commands.hpp"

#include <iostream>

#include "app/cli/client_options.hpp"
#include "app/cli/paging.hpp"
#include "app/cli/subcommands.hpp"
#include "app/cli/table.hpp"
#include "app/cli/task_wait.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::cli {
// Named, not anonymous: the unity build compiles this file with the other commands', whose
// helpers have the same names.
namespace audit_commands {

using nlohmann::json;

constexpr int kExitChainBroken = 1;

int list(const Args& a) {
  if (!a.positional().empty()) throw UsageError("audit list takes no positional arguments");
  const OutputFormat format = output_format(a);
  std::string query;
  for (const char* name : {"actor", "target", "action", "since", "until"})
    if (auto v = a.get(name))
      query += util::concat(query.empty() ? "?" : "&", name, "=", url_encode(*v));
  const std::size_t want = item_limit(a, 100);
  std::string base = "/api/v1/audit";
  if (auto node = a.get("node")) {
    if (a.get("target")) throw UsageError("give --node or --target, not both");
    base = "/api/v1/nodes/" + url_encode(*node) + "/audit";
  }
  HttpClient client = make_client(a);
  const std::vector<json> items = fetch_items(client, base, query, want);
  if (format == OutputFormat::json) {
    print_json(json(items));
    return kExitOk;
  }
  Table table({"SEQ", "AT", "ACTOR", "ACTION", "TARGET", "OUTCOME"});
  for (const auto& e : items) {
    std::string what = field_text(e, "target_name");
    if (what.empty()) what = field_text(e, "target_id");
    table.add_row({field_text(e, "seq"), field_text(e, "at"), field_text(e, "actor"),
                   field_text(e, "action"), what, field_text(e, "outcome")});
  }
  std::cout << table.render();
  return kExitOk;
}

int verify(const Args& a) {
  if (!a.positional().empty()) throw UsageError("audit verify takes no positional arguments");
  const OutputFormat format = output_format(a);
  HttpClient client = make_client(a);
  const json report = client.get("/api/v1/audit/verify");
  const bool ok = report.value("ok", false);
  if (format == OutputFormat::json) {
    print_json(report);
  } else if (ok) {
    std::cout << "the audit chain is intact: " << field_text(report, "entries") << " entries, head "
              << field_text(report["head"], "seq") << " (" << field_text(report["head"], "at")
              << ")";
    if (report.contains("anchor") && report["anchor"].is_object())
      std::cout << "; anchored outside the database up to entry "
                << field_text(report["anchor"], "seq");
    std::cout << '\n';
  } else {
    const json& problem = report["problem"];
    std::cout << "the audit chain is broken (" << field_text(problem, "kind")
              << "): " << field_text(problem, "message") << '\n';
  }
  return ok ? kExitOk : kExitChainBroken;
}

constexpr Subcommand kCommands[] = {
    {"list", "", "List audit entries, newest first.", &list},
    {"verify", "",
     "Walk the audit chain and report the first entry modified, deleted, inserted or reordered "
     "(exit status 1 when there is one).",
     &verify},
};

std::vector<Option> options_of(std::string_view name) {
  if (name != "list") return {};
  return {make_option("actor", "NAME", "Only what this token, user or cli:<user> did."),
          make_option("target", "ID", "Only entries about this target id."),
          make_option("node", "NODE", "Only entries about this node (id or name)."),
          make_option("action", "ACTION", "Only this action, or a prefix ending in *."),
          make_option("since", "TIME", "Entries at or after this RFC 3339 time."),
          make_option("until", "TIME", "Entries before this RFC 3339 time."),
          make_option("limit", "N", "Show at most N entries (default 100).")};
}

}  // namespace audit_commands

int run_audit_command(std::span<const std::string> argv) {
  using namespace audit_commands;
  static const CommandGroup group{"audit", "Read and verify the audit trail.", kCommands,
                                  &options_of};
  return run_command_group(group, argv);
}

}  // namespace ironhold::cli

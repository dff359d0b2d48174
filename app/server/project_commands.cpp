// `ironhold project add|list|set|rm`: on the database directly, like `ironhold user`, so projects
// can be laid out before anyone signs in. `set` gives a project its BMC password rotation policy
// (PATCH /api/v1/projects/{name} does the same through the API).
#include <iostream>

#include "app/cli/client_options.hpp"
#include "app/cli/table.hpp"
#include "app/server/commands.hpp"
#include "app/server/database_target.hpp"
#include "inventory/db/audit_store.hpp"
#include "inventory/db/database.hpp"
#include "inventory/db/project_store.hpp"
#include "inventory/error.hpp"

namespace ironhold::app {
// Named, not anonymous: the unity build compiles this file with the other commands', whose
// helpers have the same names.
namespace project_commands {

using nlohmann::json;

json project_json(const db::ProjectInfo& p) {
  auto opt = [](const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); };
  return {{"name", p.name},
          {"description", p.description},
          {"created_by", opt(p.created_by)},
          {"created_at", opt(p.created_at)},
          {"nodes", p.nodes},
          {"cloud_accounts", p.cloud_accounts},
          {"bmc_password_max_age_days",
           p.bmc_password_max_age_days ? json(*p.bmc_password_max_age_days) : json(nullptr)}};
}

std::string days_text(const std::optional<int>& days) {
  return days ? std::to_string(*days) + " days" : std::string("never");
}

// "90", "90d" or "never" (no rotation by the policy).
std::optional<int> parse_max_age(const std::string& given) {
  if (given == "never") return std::nullopt;
  std::string text = given;
  if (!text.empty() && text.back() == 'd') text.pop_back();
  try {
    std::size_t used = 0;
    const int days = std::stoi(text, &used);
    if (used == text.size()) return days;
  } catch (const std::exception&) {
  }
  throw cli::UsageError(
      "--bmc-password-max-age takes a number of days (90 or 90d) or never, not \"" + given + "\"");
}

struct ProjectDatabase {
  DatabaseTarget target;
  std::unique_ptr<db::Database> database;
};

ProjectDatabase open_projects(const cli::Args& args) {
  ProjectDatabase p{open_database_target(args, true), nullptr};
  p.database = std::make_unique<db::Database>(
      db::DatabaseOptions{.url = p.target.runtime_url,
                          .pool_size = 1,
                          .audit_key = load_audit_key_for(args, p.target)});
  return p;
}

void audit(db::Database& database, const std::string& action, const db::ProjectInfo& project,
           json details) {
  db::AuditEntry entry;
  entry.actor = local_actor();
  entry.action = action;
  entry.target_type = "project";
  entry.target_id = project.name;
  entry.target_name = project.name;
  entry.outcome = "ok";
  entry.project = project.name;
  entry.details = std::move(details);
  db::AuditStore(database).record(entry);
}

const std::string& one_name(const cli::Args& args, const char* what) {
  if (args.positional().size() != 1)
    throw cli::UsageError(std::string("name the project to ") + what);
  return args.positional()[0];
}

int add(std::span<const std::string> argv) {
  auto options = database_options();
  options.push_back({"description", 0, true, false, "what the project is for", "", "", "TEXT"});
  cli::Args args("ironhold project add", "NAME",
                 "Add a project (lower-case letters, digits, '.', '_', '-')", options);
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  const std::string& name = one_name(args, "add");
  const std::string description = args.value_or("description", "");
  auto p = open_projects(args);
  const auto project = db::ProjectStore(*p.database).add(name, description, local_actor());
  audit(*p.database, "project.create", project, {{"description", project.description}});
  std::cerr << "created project " << project.name << "\n";
  return 0;
}

int list(std::span<const std::string> argv) {
  auto options = database_options();
  options.push_back({"output", 'o', true, false, "table or json", "", "table", "FORMAT"});
  cli::Args args("ironhold project list", "", "List projects with their node and account counts",
                 options);
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  const auto format = cli::output_format(args);
  auto p = open_projects(args);
  const auto projects = db::ProjectStore(*p.database).list();
  if (format == cli::OutputFormat::json) {
    json items = json::array();
    for (const auto& project : projects) items.push_back(project_json(project));
    cli::print_json(items);
    return 0;
  }
  cli::Table table({"NAME", "NODES", "ACCOUNTS", "BMC PASSWORD MAX AGE", "DESCRIPTION"});
  for (const auto& project : projects)
    table.add_row({project.name, std::to_string(project.nodes),
                   std::to_string(project.cloud_accounts),
                   days_text(project.bmc_password_max_age_days), project.description});
  std::cout << table.render();
  return 0;
}

int set(std::span<const std::string> argv) {
  auto options = database_options();
  options.push_back({"bmc-password-max-age", 0, true, false,
                     "rotate the BMC passwords of the project's owned servers once they are this "
                     "old (never: only by hand)",
                     "", "", "DAYS|never"});
  options.push_back({"output", 'o', true, false, "table or json", "", "table", "FORMAT"});
  cli::Args args("ironhold project set", "NAME", "Set a project's BMC password rotation policy",
                 options);
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  const std::string& name = one_name(args, "set");
  const auto given = args.get("bmc-password-max-age");
  if (!given) throw cli::UsageError("name what to set: --bmc-password-max-age DAYS|never");
  const std::optional<int> days = parse_max_age(*given);
  const auto format = cli::output_format(args);
  auto p = open_projects(args);
  const auto project = db::ProjectStore(*p.database).set_password_max_age(name, days);
  audit(*p.database, "project.update", project,
        {{"bmc_password_max_age_days", days ? json(*days) : json(nullptr)}});
  if (format == cli::OutputFormat::json)
    cli::print_json(project_json(project));
  else
    std::cerr << "project " << project.name << ": BMC passwords rotated after "
              << days_text(project.bmc_password_max_age_days) << "\n";
  return 0;
}

int remove_project(std::span<const std::string> argv) {
  cli::Args args("ironhold project rm", "NAME",
                 "Remove a project that never held anything (its roles and tokens go with it)",
                 database_options());
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  const std::string& name = one_name(args, "remove");
  auto p = open_projects(args);
  const auto project = db::ProjectStore(*p.database).remove(name);
  audit(*p.database, "project.remove", project, json::object());
  std::cerr << "removed project " << project.name << "\n";
  return 0;
}

}  // namespace project_commands

int run_project_command(std::span<const std::string> argv) {
  using namespace project_commands;
  return cli::run_guarded("project", [&] {
    const std::string usage =
        "usage: ironhold project add|list|set|rm [options]\n"
        "  add NAME [--description TEXT]   add a project\n"
        "  list                            list projects\n"
        "  set NAME --bmc-password-max-age DAYS|never\n"
        "                                  rotate its BMC passwords once this old\n"
        "  rm NAME                         remove a project that never held anything\n"
        "Run ironhold project SUBCOMMAND --help for its options.\n";
    if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
      std::cout << usage;
      return argv.empty() ? 2 : 0;
    }
    const auto rest = argv.subspan(1);
    if (argv[0] == "add") return add(rest);
    if (argv[0] == "list") return list(rest);
    if (argv[0] == "set") return set(rest);
    if (argv[0] == "rm") return remove_project(rest);
    throw cli::UsageError("unknown project subcommand \"" + argv[0] + "\"\n" + usage);
  });
}

}  // namespace ironhold::app

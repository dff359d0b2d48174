// `ironhold token create|list|revoke`: on the database directly, so the first admin token can be
// made before any token exists. The secret is printed alone on stdout, once.
#include <iostream>

#include "app/cli/client_options.hpp"
#include "app/cli/table.hpp"
#include "app/server/commands.hpp"
#include "app/server/database_target.hpp"
#include "inventory/db/audit_store.hpp"
#include "inventory/db/database.hpp"
#include "inventory/db/token_store.hpp"
#include "inventory/error.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::app {
// Named, not anonymous: the unity build compiles this file with the other commands', whose
// helpers have the same names.
namespace token_commands {

nlohmann::json token_json(const db::TokenInfo& t) {
  auto opt = [](const std::optional<std::string>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {{"id", t.id},
          {"name", t.name},
          {"role", t.role ? nlohmann::json(to_string(*t.role)) : nlohmann::json(nullptr)},
          {"project", opt(t.project)},
          {"user", opt(t.user_name)},
          {"prefix", t.prefix},
          {"created_by", opt(t.created_by)},
          {"created_at", opt(t.created_at)},
          {"expires_at", opt(t.expires_at)},
          {"last_used_at", opt(t.last_used_at)},
          {"revoked_at", opt(t.revoked_at)}};
}

struct TokenDatabase {
  DatabaseTarget target;
  std::unique_ptr<db::Database> database;
};

TokenDatabase open_tokens(const cli::Args& args) {
  TokenDatabase t{open_database_target(args, true), nullptr};
  t.database = std::make_unique<db::Database>(
      db::DatabaseOptions{.url = t.target.runtime_url,
                          .pool_size = 1,
                          .audit_key = load_audit_key_for(args, t.target)});
  return t;
}

void audit(db::Database& database, const std::string& action, const db::TokenInfo& token) {
  db::AuditEntry entry;
  entry.actor = local_actor();
  entry.action = action;
  entry.target_type = "token";
  entry.target_id = token.id;
  entry.target_name = token.name;
  entry.outcome = "ok";
  entry.project = token.project;
  entry.details = {{"role", token.role ? nlohmann::json(to_string(*token.role)) : nullptr},
                   {"project", token.project ? nlohmann::json(*token.project) : nullptr},
                   {"user", token.user_name ? nlohmann::json(*token.user_name) : nullptr}};
  db::AuditStore(database).record(entry);
}

int create(std::span<const std::string> argv) {
  auto options = database_options();
  options.push_back({"name", 0, true, false, "a name for the token (unique among active tokens)",
                     "", "", "NAME"});
  options.push_back({"role", 0, true, false,
                     "viewer, operator, admin or auditor (for --user: narrows the user's roles)",
                     "", "", "ROLE"});
  options.push_back({"project", 0, true, false,
                     "the one project it acts in (default: every project)", "", "", "PROJECT"});
  options.push_back({"user", 0, true, false,
                     "a user's token: acts with the user's roles (default: a service token)", "",
                     "", "NAME"});
  options.push_back({"expires", 0, true, false, "expiry time, RFC 3339", "", "", "TIME"});
  cli::Args args("ironhold token create", "", "Create an API token and print it (only this once)",
                 options);
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  const auto name = args.get("name");
  const auto role_text = args.get("role");
  if (!name || name->empty()) throw cli::UsageError("--name is required");
  const auto user = args.get("user");
  if (!role_text && !user)
    throw cli::UsageError("--role is required (viewer, operator, admin or auditor)");
  std::optional<Role> role;
  if (role_text) {
    role = parse_enum<Role>(*role_text);
    if (!role) throw cli::UsageError("--role must be viewer, operator, admin or auditor");
  }
  std::optional<std::string> expires = args.get("expires");
  if (expires && !parse_rfc3339(*expires))
    throw cli::UsageError("--expires must be an RFC 3339 time such as 2027-01-31T00:00:00Z");
  auto t = open_tokens(args);
  auto created = db::TokenStore(*t.database)
                     .create({.name = *name,
                              .role = role,
                              .project = args.get("project"),
                              .user = user,
                              .created_by = local_actor(),
                              .expires_at = expires});
  audit(*t.database, "token.create", created.info);
  std::cerr << "created token " << created.info.name << " ("
            << (created.info.role ? std::string(to_string(*created.info.role)) : "the user's roles")
            << (created.info.project ? " in project " + *created.info.project : "")
            << (created.info.user_name ? ", for user " + *created.info.user_name : "")
            << "); it is shown only now\n";
  std::cout << created.secret << std::endl;
  return 0;
}

int list(std::span<const std::string> argv) {
  auto options = database_options();
  options.push_back({"all", 0, false, false, "include revoked tokens"});
  options.push_back({"output", 'o', true, false, "table or json", "", "table", "FORMAT"});
  cli::Args args("ironhold token list", "", "List API tokens (never their secrets)", options);
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  const auto format = cli::output_format(args);
  auto t = open_tokens(args);
  const auto tokens = db::TokenStore(*t.database).list(args.flag("all"));
  if (format == cli::OutputFormat::json) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& token : tokens) items.push_back(token_json(token));
    cli::print_json(items);
    return 0;
  }
  cli::Table table(
      {"ID", "NAME", "ROLE", "PROJECT", "USER", "PREFIX", "CREATED", "LAST USED", "REVOKED"});
  for (const auto& k : tokens)
    table.add_row({k.id, k.name, k.role ? std::string(to_string(*k.role)) : "(user's)",
                   k.project.value_or("*"), k.user_name.value_or("-"), k.prefix,
                   k.created_at.value_or(""), k.last_used_at.value_or("-"),
                   k.revoked_at.value_or("-")});
  std::cout << table.render();
  return 0;
}

int revoke(std::span<const std::string> argv) {
  cli::Args args("ironhold token revoke", "ID|NAME", "Revoke an API token", database_options());
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  if (args.positional().size() != 1)
    throw cli::UsageError("name the token to revoke: its id or name");
  auto t = open_tokens(args);
  const auto revoked = db::TokenStore(*t.database).revoke(args.positional()[0]);
  audit(*t.database, "token.revoke", revoked);
  std::cerr << "revoked token " << revoked.name << "\n";
  return 0;
}

}  // namespace token_commands

int run_token_command(std::span<const std::string> argv) {
  using namespace token_commands;
  return cli::run_guarded("token", [&] {
    const std::string usage =
        "usage: ironhold token create|list|revoke [options]\n"
        "  create --role ROLE --name NAME [--project P] [--user NAME]   print a new token (once)\n"
        "  list                             list tokens\n"
        "  revoke ID|NAME                   revoke a token\n"
        "Run ironhold token SUBCOMMAND --help for its options.\n";
    if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
      std::cout << usage;
      return argv.empty() ? 2 : 0;
    }
    const auto rest = argv.subspan(1);
    if (argv[0] == "create") return create(rest);
    if (argv[0] == "list") return list(rest);
    if (argv[0] == "revoke") return revoke(rest);
    throw cli::UsageError("unknown token subcommand \"" + argv[0] + "\"\n" + usage);
  });
}

}  // namespace ironhold::app

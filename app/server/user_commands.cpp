// `ironhold user add|passwd|rm|list|grant|revoke`: on the database directly, so the first admin
// can be made before anyone can sign in. A password is read from stdin (--password-stdin) or asked
// for on the terminal with echo off; it is never an argument (it would show in `ps` and in shell
// history) and never goes into an audit entry.
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <iostream>

#include "app/cli/client_options.hpp"
#include "app/cli/table.hpp"
#include "app/server/commands.hpp"
#include "app/server/database_target.hpp"
#include "inventory/db/audit_store.hpp"
#include "inventory/db/database.hpp"
#include "inventory/db/project_store.hpp"
#include "inventory/db/user_store.hpp"
#include "inventory/error.hpp"

namespace ironhold::app {
// Named, not anonymous: the unity build compiles this file with the other commands', whose
// helpers have the same names.
namespace user_commands {

using nlohmann::json;

json grants_json(const std::vector<Grant>& grants) {
  json out = json::array();
  for (const auto& g : grants) out.push_back(db::to_json(g));
  return out;
}

// "admin@*, operator@lab": '*' is every project.
std::string roles_text(const std::vector<Grant>& grants) {
  std::string out;
  for (const auto& g : grants) {
    if (!out.empty()) out += ", ";
    out += std::string(to_string(g.role)) + "@" + g.project.value_or("*");
  }
  return out;
}

std::string where_text(const Grant& g) {
  return g.project ? "in project " + *g.project : "in every project";
}

// --- password input ----------------------------------------------------------------------------

// The terminal's settings while echo is off, so that an interrupt restores them before the
// process dies instead of leaving the shell blind.
struct termios saved_terminal;
volatile sig_atomic_t echo_is_off = 0;

void restore_terminal_and_die(int signal_number) {
  if (echo_is_off) ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_terminal);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

class EchoOff {
 public:
  EchoOff() {
    if (::tcgetattr(STDIN_FILENO, &saved_terminal) != 0)
      throw Error(ErrorKind::invalid, "cannot read the terminal's settings to turn echo off");
    struct termios quiet = saved_terminal;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    quiet.c_lflag |= ECHONL;
    old_int_ = ::signal(SIGINT, restore_terminal_and_die);
    old_term_ = ::signal(SIGTERM, restore_terminal_and_die);
    old_hup_ = ::signal(SIGHUP, restore_terminal_and_die);
    echo_is_off = 1;
    if (::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) != 0) {
      restore();
      throw Error(ErrorKind::invalid, "cannot turn the terminal's echo off");
    }
  }
  ~EchoOff() { restore(); }
  EchoOff(const EchoOff&) = delete;
  EchoOff& operator=(const EchoOff&) = delete;

 private:
  void restore() {
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_terminal);
    echo_is_off = 0;
    ::signal(SIGINT, old_int_);
    ::signal(SIGTERM, old_term_);
    ::signal(SIGHUP, old_hup_);
  }
  using Handler = void (*)(int);
  Handler old_int_ = SIG_DFL, old_term_ = SIG_DFL, old_hup_ = SIG_DFL;
};

// One line of stdin without its line ending; nullopt at end of input before any character.
std::optional<std::string> read_line() {
  std::string line;
  if (!std::getline(std::cin, line) && line.empty()) return std::nullopt;
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  return line;
}

std::string ask_hidden(const char* prompt) {
  std::cerr << prompt << std::flush;
  std::optional<std::string> line;
  {
    EchoOff quiet;
    line = read_line();
  }
  if (!line) throw Error(ErrorKind::invalid, "no password given");
  return *line;
}

// The new password: the first line of stdin with --password-stdin, else asked twice on the
// terminal. Checked against the password rules before anything touches the database.
std::string read_new_password(const cli::Args& args) {
  if (args.flag("password-stdin")) {
    auto line = read_line();
    if (!line) throw cli::UsageError("--password-stdin: stdin held no password line");
    db::check_new_password(*line);
    return *line;
  }
  if (!::isatty(STDIN_FILENO))
    throw cli::UsageError(
        "stdin is not a terminal to ask for the password on: pipe it in with --password-stdin");
  std::string first = ask_hidden("Password: ");
  db::check_new_password(first);
  if (ask_hidden("Again: ") != first) throw Error(ErrorKind::invalid, "the passwords differ");
  return first;
}

// --- database and audit ------------------------------------------------------------------------

struct UserDatabase {
  DatabaseTarget target;
  std::unique_ptr<db::Database> database;
};

UserDatabase open_users(const cli::Args& args) {
  UserDatabase u{open_database_target(args, true), nullptr};
  u.database = std::make_unique<db::Database>(
      db::DatabaseOptions{.url = u.target.runtime_url,
                          .pool_size = 1,
                          .audit_key = load_audit_key_for(args, u.target)});
  return u;
}

void audit(db::Database& database, const std::string& action, const db::UserInfo& user,
           json details, const std::optional<std::string>& project = std::nullopt) {
  db::AuditEntry entry;
  entry.actor = local_actor();
  entry.action = action;
  entry.target_type = "user";
  entry.target_id = user.id;
  entry.target_name = user.name;
  entry.outcome = "ok";
  entry.project = project;
  entry.details = std::move(details);
  db::AuditStore(database).record(entry);
}

// --- arguments ---------------------------------------------------------------------------------

std::vector<cli::Option> with_role_options(std::vector<cli::Option> options, bool required) {
  options.push_back(
      {"role", 0, true, false,
       std::string(required ? "" : "a role to grant: ") + "viewer, operator, admin or auditor", "",
       "", "ROLE"});
  options.push_back({"project", 0, true, false,
                     "the project the role is held in (default: every project)", "", "",
                     "PROJECT"});
  return options;
}

// --role and --project as a grant; nullopt when neither was given and the role is optional.
std::optional<Grant> grant_from(const cli::Args& args, bool required) {
  const auto role_text = args.get("role");
  if (!role_text) {
    if (required) throw cli::UsageError("--role is required (viewer, operator, admin or auditor)");
    if (args.get("project")) throw cli::UsageError("--project goes with --role");
    return std::nullopt;
  }
  const auto role = parse_enum<Role>(*role_text);
  if (!role) throw cli::UsageError("--role must be viewer, operator, admin or auditor");
  Grant g;
  g.role = *role;
  if (auto project = args.get("project")) {
    if (!valid_project_name(*project))
      throw cli::UsageError(
          "--project must be a project name: lower-case letters, digits, "
          "'.', '_' or '-'");
    g.project = *project;
  }
  return g;
}

const std::string& one_name(const cli::Args& args, const char* what) {
  if (args.positional().size() != 1) throw cli::UsageError(std::string("name the user to ") + what);
  return args.positional()[0];
}

cli::Option password_stdin_option() {
  return {"password-stdin", 0, false, false,
          "read the password from the first line of stdin (else it is asked for on the terminal)"};
}

// --- subcommands -------------------------------------------------------------------------------

int add(std::span<const std::string> argv) {
  auto options = with_role_options(database_options(), false);
  options.push_back(password_stdin_option());
  cli::Args args("ironhold user add", "NAME",
                 "Add a user who signs in with a password, optionally with a role "
                 "(ironhold user grant adds more)",
                 options);
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  const std::string& name = one_name(args, "add");
  const auto grant = grant_from(args, false);
  const std::string password = read_new_password(args);
  auto u = open_users(args);
  // Checked first so that an unknown project leaves no user behind without the role asked for.
  if (grant && grant->project && !db::ProjectStore(*u.database).get(*grant->project))
    throw not_found("no project is named \"" + *grant->project + "\"");
  db::UserStore users(*u.database);
  db::UserInfo user = users.add(name, password, local_actor());
  json roles = json::array();
  if (grant) roles.push_back(db::to_json(*grant));
  audit(*u.database, "user.create", user, {{"roles", roles}});
  std::cerr << "created user " << user.name << "\n";
  if (grant) {
    user = users.grant(user.id, *grant, local_actor());
    audit(*u.database, "user.grant", user, db::to_json(*grant), grant->project);
    std::cerr << "granted " << to_string(grant->role) << " " << where_text(*grant) << " to "
              << user.name << "\n";
  }
  return 0;
}

int passwd(std::span<const std::string> argv) {
  auto options = database_options();
  options.push_back(password_stdin_option());
  cli::Args args("ironhold user passwd", "NAME",
                 "Set a user's password; their console sessions end", options);
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  const std::string& name = one_name(args, "set the password of");
  const std::string password = read_new_password(args);
  auto u = open_users(args);
  const auto user = db::UserStore(*u.database).set_password(name, password);
  audit(*u.database, "user.password", user, json::object());
  std::cerr << "set the password of " << user.name << "; their console sessions ended\n";
  return 0;
}

int remove_user(std::span<const std::string> argv) {
  cli::Args args("ironhold user rm", "NAME", "Remove a user with their roles, tokens and sessions",
                 database_options());
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  const std::string& name = one_name(args, "remove");
  auto u = open_users(args);
  const auto user = db::UserStore(*u.database).remove(name);
  audit(*u.database, "user.remove", user, {{"roles", grants_json(user.grants)}});
  std::cerr << "removed user " << user.name << "\n";
  return 0;
}

int list(std::span<const std::string> argv) {
  auto options = database_options();
  options.push_back({"output", 'o', true, false, "table or json", "", "table", "FORMAT"});
  cli::Args args("ironhold user list", "", "List users and their roles (* is every project)",
                 options);
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  const auto format = cli::output_format(args);
  auto u = open_users(args);
  const auto users = db::UserStore(*u.database).list();
  if (format == cli::OutputFormat::json) {
    json items = json::array();
    for (const auto& user : users) items.push_back(db::to_json(user));
    cli::print_json(items);
    return 0;
  }
  cli::Table table({"NAME", "ROLES", "CREATED", "LAST SIGN-IN"});
  for (const auto& user : users)
    table.add_row({user.name, roles_text(user.grants), user.created_at.value_or(""),
                   user.last_sign_in_at.value_or("")});
  std::cout << table.render();
  return 0;
}

int grant(std::span<const std::string> argv) {
  cli::Args args("ironhold user grant", "NAME",
                 "Grant a user a role in a project, or without --project in every project",
                 with_role_options(database_options(), true));
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  const std::string& name = one_name(args, "grant the role to");
  const Grant g = *grant_from(args, true);
  auto u = open_users(args);
  const auto user = db::UserStore(*u.database).grant(name, g, local_actor());
  audit(*u.database, "user.grant", user, db::to_json(g), g.project);
  std::cerr << "granted " << to_string(g.role) << " " << where_text(g) << " to " << user.name
            << "\n";
  return 0;
}

int revoke(std::span<const std::string> argv) {
  cli::Args args("ironhold user revoke", "NAME",
                 "Revoke a role a user holds in a project, or without --project in every project",
                 with_role_options(database_options(), true));
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  const std::string& name = one_name(args, "revoke the role of");
  const Grant g = *grant_from(args, true);
  auto u = open_users(args);
  const auto user = db::UserStore(*u.database).revoke(name, g);
  audit(*u.database, "user.revoke", user, db::to_json(g), g.project);
  std::cerr << "revoked " << to_string(g.role) << " " << where_text(g) << " from " << user.name
            << "\n";
  return 0;
}

}  // namespace user_commands

int run_user_command(std::span<const std::string> argv) {
  using namespace user_commands;
  return cli::run_guarded("user", [&] {
    const std::string usage =
        "usage: ironhold user add|passwd|rm|list|grant|revoke [options]\n"
        "  add NAME [--role ROLE [--project P]]    add a user; asks for the password\n"
        "  passwd NAME                             set a user's password\n"
        "  rm NAME                                 remove a user\n"
        "  list                                    list users and their roles\n"
        "  grant NAME --role ROLE [--project P]    grant a role (no --project: everywhere)\n"
        "  revoke NAME --role ROLE [--project P]   revoke a role\n"
        "Run ironhold user SUBCOMMAND --help for its options.\n";
    if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
      std::cout << usage;
      return argv.empty() ? 2 : 0;
    }
    const auto rest = argv.subspan(1);
    if (argv[0] == "add") return add(rest);
    if (argv[0] == "passwd") return passwd(rest);
    if (argv[0] == "rm") return remove_user(rest);
    if (argv[0] == "list") return list(rest);
    if (argv[0] == "grant") return grant(rest);
    if (argv[0] == "revoke") return revoke(rest);
    throw cli::UsageError("unknown user subcommand \"" + argv[0] + "\"\n" + usage);
  });
}

}  // namespace ironhold::app

// `ironhold migrate` and `ironhold db shell`.
#include <sys/wait.h>
#include <unistd.h>

#include <iostream>

#include "app/cli/client_options.hpp"
#include "app/server/commands.hpp"
#include "app/server/database_target.hpp"
#include "inventory/db/migrator.hpp"
#include "inventory/error.hpp"

namespace ironhold::app {

int run_migrate(std::span<const std::string> argv) {
  cli::Args args("ironhold migrate", "", "Apply the database migrations this binary ships (a no-op when current)",
                 database_options());
  return cli::run_guarded("migrate", [&] {
    args.parse(argv);
    if (args.help_requested()) {
      std::cout << args.help_text();
      return 0;
    }
    DatabaseTarget target = open_database_target(args, false);
    const auto report = db::migrate(target.owner_url);
    for (const auto& name : report.applied) std::cerr << "applied " << name << "\n";
    std::cerr << report.applied.size() << " applied, " << report.already_applied.size()
              << " already applied\n";
    return 0;
  });
}

namespace {

// psql on the target, as a child so that a cluster started for it is stopped afterwards.
int run_psql(const DatabaseTarget& target) {
  const auto psql = db::find_postgres_bindir() / "psql";
  const std::string url = target.owner_url;
  const pid_t child = ::fork();
  if (child < 0) throw Error(ErrorKind::internal, "fork failed");
  if (child == 0) {
    ::execl(psql.c_str(), "psql", url.c_str(), static_cast<char*>(nullptr));
    std::perror("cannot run psql");
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int run_db_command(std::span<const std::string> argv) {
  cli::Args args("ironhold db", "shell", "Open psql on the database (the embedded cluster of --data-dir by default)",
                 database_options());
  return cli::run_guarded("db", [&] {
    args.parse(argv);
    if (args.help_requested()) {
      std::cout << args.help_text();
      return 0;
    }
    if (args.positional().size() != 1 || args.positional()[0] != "shell")
      throw cli::UsageError("the db command has one subcommand: shell");
    DatabaseTarget target = open_database_target(args, false);
    return run_psql(target);
  });
}

}  // namespace ironhold::app

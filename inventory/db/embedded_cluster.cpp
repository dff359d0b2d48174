#include "inventory/db/embedded_cluster.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <pqxx/pqxx>
#include <thread>

#include "inventory/db/cluster_files.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "inventory/util/process.hpp"

namespace ironhold::db {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct EmbeddedCluster::State {
  cluster::Layout layout;
  std::optional<util::Identity> run_as;  // nullopt: the cluster runs as this process's user
  fs::path bindir;
  std::chrono::seconds timeout{60};
  bool durable = true;
  bool owns = false;
};

namespace {

using State = EmbeddedCluster::State;

constexpr const char* superuser_role = "ironhold_super";

std::string conninfo_value(const std::string& value) {
  bool plain = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
           c == '/';
  });
  if (plain) return value;
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// `connect_timeout` only for probes: the public URLs are the plain key=value form.
std::string conninfo(const State& s, const std::string& user, const std::string& database,
                     int connect_timeout = 0) {
  std::string info = "host=" + conninfo_value(s.layout.socket_dir.string()) +
                     " port=" + std::to_string(cluster::port) +
                     " dbname=" + conninfo_value(database) + " user=" + conninfo_value(user);
  if (connect_timeout > 0) info += " connect_timeout=" + std::to_string(connect_timeout);
  return info;
}

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

Error failure(const State& s, const std::string& what, const util::ProcessResult& r,
              bool with_log) {
  std::string message = what + " (" + r.status_text() + ")";
  std::string said = trimmed(r.err.empty() ? r.out : r.err);
  if (!said.empty()) message += ": " + said;
  if (with_log) {
    std::string tail = trimmed(cluster::log_tail(s.layout.log_file));
    if (!tail.empty()) message += "\nlast lines of " + s.layout.log_file.string() + ":\n" + tail;
  }
  return Error(ErrorKind::unavailable, message);
}

util::ProcessResult run_tool(const State& s, const char* tool,
                             const std::vector<std::string>& args) {
  util::ProcessOptions options;
  options.run_as = s.run_as;
  // The cluster user may not be able to enter our working directory (e.g. /root), and initdb
  // fails when it cannot resolve its own location from there.
  options.cwd = "/";
  // PGPORT, PGDATA and friends from the caller's shell must not redirect the server.
  options.environment = util::environment_without({"PG"});
  options.timeout = s.timeout + 30s;
  return util::run_process(s.bindir / tool, args, options);
}

bool accepts_connections(const State& s) {
  try {
    pqxx::connection c(conninfo(s, superuser_role, "postgres", 3));
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

void create_cluster_files(const State& s) {
  const fs::path& pgdata = s.layout.pgdata;
  if (fs::exists(pgdata / "PG_VERSION")) return;
  if (fs::exists(pgdata)) fs::remove_all(pgdata);  // what an interrupted initdb left behind
  log::info("creating the embedded PostgreSQL cluster", {{"pgdata", pgdata.string()}});
  auto r = run_tool(
      s, "initdb",
      {"-D", pgdata.string(), std::string("--username=") + superuser_role, "--auth-local=trust",
       "--auth-host=reject", "--encoding=UTF8", "--locale=C.UTF-8", "--no-instructions"});
  if (!r.ok())
    throw failure(s, "initdb could not create the database cluster in " + pgdata.string(), r,
                  false);
}

void start_server(State& s) {
  cluster::clear_stale_pid_files(s.layout);
  cluster::write_settings(s.layout, s.run_as, s.durable);
  cluster::rotate_log(s.layout);
  log::info("starting the embedded PostgreSQL",
            {{"pgdata", s.layout.pgdata.string()}, {"socket_dir", s.layout.socket_dir.string()}});
  auto r = run_tool(s, "pg_ctl",
                    {"start", "-D", s.layout.pgdata.string(), "-l", s.layout.log_file.string(),
                     "-w", "-t", std::to_string(s.timeout.count()), "-s"});
  if (!r.ok())
    throw failure(s, "could not start the embedded PostgreSQL in " + s.layout.pgdata.string(), r,
                  true);
  cluster::write_owner_self(s.layout.data_dir);
  s.owns = true;
}

void stop_server(const State& s) {
  auto r = run_tool(s, "pg_ctl",
                    {"stop", "-D", s.layout.pgdata.string(), "-m", "fast", "-w", "-t",
                     std::to_string(s.timeout.count()), "-s"});
  // pg_ctl also fails when the server is already gone, which is what we want anyway.
  if (!r.ok() && !cluster::server_processes(s.layout.pgdata).empty())
    throw failure(s, "could not stop the embedded PostgreSQL in " + s.layout.pgdata.string(), r,
                  true);
}

// The server is running: decide whether this process becomes responsible for stopping it.
void take_over_if_orphaned(State& s) {
  const auto owner = cluster::read_owner(s.layout.data_dir);
  if (owner.kind == cluster::Owner::Kind::detached || cluster::owner_alive(owner)) {
    log::debug("attached to the running embedded PostgreSQL",
               {{"pgdata", s.layout.pgdata.string()}});
    return;
  }
  log::warn("adopting an embedded PostgreSQL whose owner is gone; it stops when this process exits",
            {{"pgdata", s.layout.pgdata.string()}, {"previous_owner_pid", owner.pid}});
  cluster::write_owner_self(s.layout.data_dir);
  s.owns = true;
}

void start_or_attach(State& s) {
  const auto deadline = std::chrono::steady_clock::now() + s.timeout;
  for (;;) {
    if (accepts_connections(s)) return take_over_if_orphaned(s);
    // Server processes that do not accept connections are starting up, shutting down, or
    // orphaned backends of a killed postmaster that exit on their own shortly.
    auto pids = cluster::server_processes(s.layout.pgdata);
    if (pids.empty()) return start_server(s);
    if (std::chrono::steady_clock::now() > deadline) {
      std::string list;
      for (pid_t pid : pids) {
        if (!list.empty()) list += ' ';
        list += std::to_string(pid);
      }
      std::string tail = trimmed(cluster::log_tail(s.layout.log_file));
      throw Error(ErrorKind::unavailable,
                  "PostgreSQL processes of " + s.layout.pgdata.string() + " (pids " + list +
                      ") run but do not accept connections; stop them (kill " + list +
                      ") and try again\nlast lines of " + s.layout.log_file.string() + ":\n" +
                      tail);
    }
    std::this_thread::sleep_for(200ms);
  }
}

void grant_runtime_access(const State& s, const std::string& database) {
  pqxx::connection c(conninfo(s, superuser_role, database));
  pqxx::work tx(c);
  const std::string owner = c.quote_name(owner_role), runtime = c.quote_name(runtime_role);
  // PostgreSQL 15 already keeps PUBLIC from creating in schema public; owning the schema lets
  // migrations create there. The runtime role only ever gets DML on what the owner creates.
  tx.exec0("ALTER SCHEMA public OWNER TO " + owner);
  tx.exec0("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
  tx.exec0("GRANT USAGE ON SCHEMA public TO " + runtime);
  const std::string defaults =
      "ALTER DEFAULT PRIVILEGES FOR ROLE " + owner + " IN SCHEMA public GRANT ";
  tx.exec0(defaults + "SELECT, INSERT, UPDATE, DELETE ON TABLES TO " + runtime);
  tx.exec0(defaults + "USAGE, SELECT ON SEQUENCES TO " + runtime);
  tx.exec0(defaults + "EXECUTE ON FUNCTIONS TO " + runtime);
  tx.commit();
}

void create_database_in(const State& s, const std::string& name,
                        const std::string& template_database) {
  pqxx::connection c(conninfo(s, superuser_role, "postgres"));
  const std::string sql = "CREATE DATABASE " + c.quote_name(name) + " OWNER " +
                          c.quote_name(owner_role) + " TEMPLATE " + c.quote_name(template_database);
  for (int attempt = 1;; ++attempt) {
    try {
      pqxx::nontransaction tx(c);
      tx.exec0(sql);
      break;
    } catch (const pqxx::sql_error& e) {
      // 55006: another session is connected to the template for a moment (e.g. a migrator that
      // is closing); copying needs it idle. The server itself already waited 5 s each time.
      if (e.sqlstate() == "55006" && attempt < 4) {
        std::this_thread::sleep_for(100ms);
        continue;
      }
      if (e.sqlstate() == "42P04") throw conflict("database " + name + " already exists");
      throw Error(ErrorKind::unavailable, "cannot create database " + name + ": " + e.what());
    }
  }
  grant_runtime_access(s, name);
}

// Roles and the `ironhold` database, created once; cheap to check at every start.
void bootstrap(const State& s) {
  try {
    pqxx::connection c(conninfo(s, superuser_role, "postgres"));
    pqxx::nontransaction tx(c);
    for (const char* role : {owner_role, runtime_role})
      if (tx.exec_params("SELECT 1 FROM pg_roles WHERE rolname = $1", role).empty())
        tx.exec0("CREATE ROLE " + c.quote_name(role) +
                 " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE");
    if (tx.exec_params("SELECT 1 FROM pg_database WHERE datname = $1", "ironhold").empty())
      create_database_in(s, "ironhold", "template0");
    else
      grant_runtime_access(s, "ironhold");  // idempotent; completes a bootstrap cut short
  } catch (const pqxx::failure& e) {
    throw Error(ErrorKind::unavailable,
                "cannot set up roles and database in the embedded PostgreSQL (" +
                    s.layout.pgdata.string() + "): " + e.what());
  }
}

bool has_server_tools(const fs::path& dir) {
  return fs::exists(dir / "initdb") && fs::exists(dir / "pg_ctl") && fs::exists(dir / "postgres");
}

}  // namespace

fs::path find_postgres_bindir() {
  if (const char* env = std::getenv("IRONHOLD_PG_BINDIR"); env && *env) {
    if (!has_server_tools(env))
      throw Error(ErrorKind::unavailable,
                  std::string("IRONHOLD_PG_BINDIR=") + env +
                      " does not hold initdb, pg_ctl and postgres; point it at "
                      "a PostgreSQL server bin directory such as "
                      "/usr/lib/postgresql/15/bin");
    return env;
  }
  const fs::path root = "/usr/lib/postgresql";
  if (has_server_tools(root / "15" / "bin")) return root / "15" / "bin";
  int best = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    int version = std::atoi(entry.path().filename().c_str());
    if (version > best && has_server_tools(entry.path() / "bin")) best = version;
  }
  if (best > 0) return root / std::to_string(best) / "bin";
  if (fs::exists("/usr/bin/pg_config")) {
    auto r = util::run_process("/usr/bin/pg_config", {"--bindir"});
    fs::path dir = trimmed(r.out);
    if (r.ok() && has_server_tools(dir)) return dir;
  }
  throw Error(
      ErrorKind::unavailable,
      "PostgreSQL server binaries not found in /usr/lib/postgresql/<version>/bin or "
      "`pg_config --bindir`; install them (apt-get install postgresql-15) or set "
      "IRONHOLD_PG_BINDIR to the directory holding initdb and pg_ctl, or give a database URL");
}

std::unique_ptr<EmbeddedCluster> EmbeddedCluster::start(const EmbeddedClusterOptions& options) {
  try {
    auto s = std::make_unique<State>();
    s->bindir = find_postgres_bindir();
    s->timeout = options.start_timeout;
    s->durable = options.durable;
    const fs::path data_dir = cluster::prepare_data_dir(options.data_dir);
    // Serializes ironhold processes on this data directory: one creates, starts or adopts at a
    // time.
    cluster::DirLock lock(data_dir);
    s->run_as = cluster::cluster_user(cluster::existing_base(data_dir));
    s->layout = cluster::resolve_layout(data_dir, s->run_as);
    cluster::prepare_directories(s->layout, s->run_as);
    create_cluster_files(*s);
    start_or_attach(*s);
    // From here a failure stops a server this call started, through the destructor.
    std::unique_ptr<EmbeddedCluster> cluster(new EmbeddedCluster(std::move(s)));
    bootstrap(*cluster->state_);
    return cluster;
  } catch (const fs::filesystem_error& e) {
    throw Error(ErrorKind::unavailable,
                "cannot prepare the embedded PostgreSQL for data directory " +
                    options.data_dir.string() + ": " + e.what());
  }
}

EmbeddedCluster::EmbeddedCluster(std::unique_ptr<State> state) : state_(std::move(state)) {}

EmbeddedCluster::~EmbeddedCluster() {
  try {
    stop();
  } catch (const std::exception& e) {
    log::error("could not stop the embedded PostgreSQL", {{"error", e.what()}});
  }
}

void EmbeddedCluster::stop() {
  if (!state_->owns) return;
  state_->owns = false;  // one attempt only: the destructor must not repeat a failed stop
  log::info("stopping the embedded PostgreSQL", {{"pgdata", state_->layout.pgdata.string()}});
  stop_server(*state_);
  cluster::remove_owner_if_self(state_->layout.data_dir);
}

void EmbeddedCluster::detach() {
  if (!state_->owns) return;
  cluster::write_owner_detached(state_->layout.data_dir);
  state_->owns = false;
}

std::string EmbeddedCluster::owner_url(const std::string& database) const {
  return conninfo(*state_, owner_role, database);
}
std::string EmbeddedCluster::runtime_url(const std::string& database) const {
  return conninfo(*state_, runtime_role, database);
}
std::string EmbeddedCluster::superuser_url(const std::string& database) const {
  return conninfo(*state_, superuser_role, database);
}

void EmbeddedCluster::create_database(const std::string& name,
                                      const std::string& template_database) const {
  try {
    create_database_in(*state_, name, template_database);
  } catch (const pqxx::failure& e) {
    throw Error(ErrorKind::unavailable, "cannot create database " + name + ": " + e.what());
  }
}

void EmbeddedCluster::drop_database(const std::string& name) const {
  try {
    pqxx::connection c(superuser_url());
    pqxx::nontransaction tx(c);
    tx.exec0("DROP DATABASE IF EXISTS " + c.quote_name(name) + " WITH (FORCE)");
  } catch (const pqxx::failure& e) {
    throw Error(ErrorKind::unavailable, "cannot drop database " + name + ": " + e.what());
  }
}

const fs::path& EmbeddedCluster::data_dir() const noexcept {
  return state_->layout.data_dir;
}
const fs::path& EmbeddedCluster::cluster_dir() const noexcept {
  return state_->layout.pgdata;
}
const fs::path& EmbeddedCluster::socket_dir() const noexcept {
  return state_->layout.socket_dir;
}
bool EmbeddedCluster::owns_server() const noexcept {
  return state_->owns;
}

bool stop_embedded_cluster(const fs::path& data_dir, std::chrono::seconds timeout) {
  const fs::path dir = fs::absolute(data_dir).lexically_normal();
  if (!fs::is_directory(dir) || !cluster::existing_base(dir)) return false;
  cluster::DirLock lock(dir);
  State s;
  s.bindir = find_postgres_bindir();
  s.timeout = timeout;
  s.run_as = cluster::cluster_user(cluster::existing_base(dir));
  s.layout = cluster::resolve_layout(dir, s.run_as);
  if (cluster::server_processes(s.layout.pgdata).empty()) return false;
  stop_server(s);
  std::error_code ignored;
  fs::remove(cluster::owner_file(dir), ignored);
  return true;
}

}  // namespace ironhold::db

// `ironhold serve` through a real PgBouncer (Debian's) in transaction mode, which hands each
// transaction whichever server connection is free: migrations, the API, the CLI, a task, the
// poller and an export run through it; the change feed's LISTEN, session state PgBouncer cannot
// keep, goes straight to PostgreSQL (--listen-database). PgBouncer's own console says which of
// the service's connections it carried. Exports read from --export-database, here a second
// database (as a replica would be one), also through PgBouncer.
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "inventory/db/embedded_cluster.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/app/shared_database_serve.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/child_process.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/sse_client.hpp"
#include "tests/support/test_cluster.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace pgbouncer_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::optional<fs::path> find_pgbouncer() {
  for (const char* dir : {"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"})
    if (::access((std::string(dir) + "/pgbouncer").c_str(), X_OK) == 0)
      return fs::path(dir) / "pgbouncer";
  return std::nullopt;
}

// A loopback port nothing listens on right now.
unsigned short free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  socklen_t length = sizeof address;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  ::close(fd);
  return ntohs(address.sin_port);
}

// "host=/…/socket port=5432 dbname=t_… user=…" → the value of `key`.
std::string conninfo_value(const std::string& conninfo, const std::string& key) {
  std::smatch m;
  const std::regex pair("(?:^| )" + key + "=([^ ]+)");
  REQUIRE(std::regex_search(conninfo, m, pair));
  return m[1];
}

// PgBouncer refuses to run as root: as root (CI) it is started with -u and that user must own
// its directory, like the embedded PostgreSQL, which runs as `postgres` too.
struct Bouncer {
  fs::path dir;
  unsigned short port = 0;
  std::unique_ptr<ChildProcess> process;

  Bouncer(const fs::path& binary, const TestDatabase& main, const TestDatabase& replica) {
    char dir_template[] = "/tmp/ih-pgbouncer-XXXXXX";
    REQUIRE(::mkdtemp(dir_template));
    dir = dir_template;
    ::chmod(dir.c_str(), 0755);
    const std::string socket_dir = conninfo_value(main.owner_url(), "host");
    const std::string pg_port = conninfo_value(main.owner_url(), "port");
    port = free_loopback_port();
    const auto server = [&](const TestDatabase& db) {
      return "host=" + socket_dir + " port=" + pg_port + " dbname=" + db.name();
    };
    std::ofstream(dir / "pgbouncer.ini")
        << "[databases]\n"
        << main.name() << " = " << server(main) << "\n"
        << replica.name() << " = " << server(replica) << "\n"
        << "[pgbouncer]\n"
        << "listen_addr = 127.0.0.1\n"
        << "listen_port = " << port << "\n"
        << "unix_socket_dir =\n"
        << "auth_type = trust\n"  // loopback only, in a test
        << "auth_file = " << (dir / "users.txt").string() << "\n"
        << "pool_mode = transaction\n"
        << "default_pool_size = 8\n"
        << "admin_users = ironhold_owner\n"
        << "logfile = " << (dir / "pgbouncer.log").string() << "\n";
    std::ofstream(dir / "users.txt") << "\"ironhold_owner\" \"\"\n\"ironhold\" \"\"\n";
    std::vector<std::string> args;
    if (::geteuid() == 0) {
      const passwd* pg = ::getpwnam("postgres");
      REQUIRE(pg);  // the embedded PostgreSQL made it
      REQUIRE(::chown(dir.c_str(), pg->pw_uid, pg->pw_gid) == 0);
      args = {"-u", "postgres"};
    }
    args.push_back((dir / "pgbouncer.ini").string());
    process = std::make_unique<ChildProcess>(binary.string(), args, dir / "stderr.log");
    const auto up = process->wait_for_line("process up", 60s);
    INFO(process->stderr_text());
    REQUIRE(up);
  }
  ~Bouncer() {
    if (process) {
      process->signal(SIGTERM);
      process->wait(10s);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string url(const TestDatabase& db, const std::string& user = "ironhold_owner") const {
    return "host=127.0.0.1 port=" + std::to_string(port) + " dbname=" + db.name() + " user=" + user;
  }
  // A SHOW of PgBouncer's admin console, as rows of column → value. Through psql: libpqxx 6.4
  // refuses a server whose version (PgBouncer's own, 1.18) is below PostgreSQL 9.0.
  std::vector<std::map<std::string, std::string>> show(const std::string& what) const {
    const auto psql = util::run_process(
        db::find_postgres_bindir() / "psql",
        {"-X", "-A", "-F", "\t", "-P", "footer=off", "-c", "SHOW " + what,
         "host=127.0.0.1 port=" + std::to_string(port) + " dbname=pgbouncer user=ironhold_owner"});
    INFO(psql.err);
    REQUIRE(psql.ok());
    std::vector<std::map<std::string, std::string>> out;
    std::vector<std::string> columns;
    std::istringstream lines(psql.out);
    for (std::string line; std::getline(lines, line);) {
      std::vector<std::string> fields;
      std::istringstream cells(line);
      for (std::string cell; std::getline(cells, cell, '\t');) fields.push_back(cell);
      if (columns.empty()) {
        columns = fields;
        continue;
      }
      auto& row = out.emplace_back();
      for (std::size_t i = 0; i < columns.size(); ++i)
        row[columns[i]] = i < fields.size() ? fields[i] : "";
    }
    return out;
  }
};

}  // namespace

TEST_CASE("serve runs through PgBouncer in transaction mode, with a direct connection to LISTEN",
          "[app][pgbouncer]") {
  const auto binary = find_pgbouncer();
  if (!binary) {
    WARN("pgbouncer is not installed (scripts/install-deps.sh installs Debian's): test skipped");
    return;
  }
  TempDir dir("ih-pgbouncer-serve");
  TestDatabase database, replica;
  Bouncer bouncer(*binary, database, replica);
  const SharedKeys keys(dir.path());

  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("compute-server");
  o.count = 2;
  o.reset_delay = 200ms;
  sim::RedfishFleet fleet(o);
  fleet.start();

  const std::string pooled = bouncer.url(database);
  auto served = start_shared_serve(
      pooled, keys, dir.path() / "data",
      {"--listen-database", database.owner_url(), "--export-database", bouncer.url(replica),
       "--no-prepared-statements", "--poll-status-interval", "1", "--poll-lease", "5",
       "--shutdown-grace", "1000"},
      dir.path() / "serve.log");
  const unsigned short port = served.process.port;
  const std::string token = shared_admin_token(pooled, keys, dir.path() / "data");

  SseClient stream(port, "/api/v1/stream?kinds=node,task", token);
  REQUIRE(stream.status() == 200);
  stream.until_comment("connected");

  std::vector<std::string> ids;
  for (std::size_t i = 0; i < fleet.size(); ++i) {
    const auto res = http_send(port, "POST", "/api/v1/nodes",
                               {{"name", "pgb-" + std::to_string(i)},
                                {"driver", "redfish"},
                                {"endpoint", fleet.endpoint(i)},
                                {"credentials", {{"username", "admin"}, {"password", "password"}}},
                                {"location", {{"rack", "pgb"}}}},
                               token);
    INFO(res.body);
    REQUIRE(res.status == 201);
    ids.push_back(res.json()["id"]);
  }
  // The poller: claims, leases renewed, results recorded, all through PgBouncer.
  const auto polled = [&] {
    for (const auto& id : ids) {
      const auto node = http_get(port, "/api/v1/nodes/" + id, token);
      if (node.status != 200 || node.json()["power_state"] != "on" ||
          node.json()["serial"].is_null())
        return false;
    }
    return true;
  };
  REQUIRE(eventually(polled, 120s));

  // A task: claimed under the advisory lock, its lease renewed, its steps saved.
  const auto bulk = http_send(
      port, "POST", "/api/v1/actions",
      {{"selector", {{"rack", "pgb"}}}, {"action", "power"}, {"parameters", {{"action", "cycle"}}}},
      token);
  INFO(bulk.body);
  REQUIRE(bulk.status == 202);
  const std::string bulk_id = bulk.json()["bulk_id"];
  json tasks;
  REQUIRE(eventually(
      [&] {
        const auto res = http_get(port, "/api/v1/tasks?bulk_id=" + bulk_id, token);
        if (res.status != 200) return false;
        tasks = res.json()["items"];
        for (const auto& t : tasks)
          if (t["state"] != "succeeded" && t["state"] != "failed") return false;
        return tasks.size() == ids.size();
      },
      120s));
  std::set<std::string> task_ids;
  for (const auto& t : tasks) {
    INFO(t.dump());
    CHECK(t["state"] == "succeeded");
    task_ids.insert(t["id"].get<std::string>());
  }

  // The stream, woken by NOTIFYs on its direct connection: the nodes and the tasks' ends.
  std::set<std::string> nodes_seen, tasks_done;
  stream.until(
      [&](const SseEvent& e) {
        const json data = e.json();
        if (e.type == "node.updated") nodes_seen.insert(data["id"].get<std::string>());
        if (e.type == "task.updated" && data["state"] == "succeeded")
          tasks_done.insert(data["id"].get<std::string>());
        return nodes_seen.size() == ids.size() && tasks_done == task_ids;
      },
      120s);
  CHECK(nodes_seen.size() == ids.size());
  CHECK(tasks_done == task_ids);

  // Exports read from --export-database (through PgBouncer too): a database without these nodes.
  const auto exported = http_get(port, "/api/v1/export/assets?format=json", token);
  INFO(exported.body);
  CHECK(exported.status == 200);
  CHECK(exported.json() == json::array());
  CHECK(http_get(port, "/api/v1/nodes", token).json()["items"].size() == ids.size());

  // PgBouncer carried the pool and the export pool; the LISTEN connection never went through it.
  std::set<std::string> clients;
  for (const auto& client : bouncer.show("CLIENTS"))
    if (client.at("database") != "pgbouncer") clients.insert(client.at("application_name"));
  INFO("PgBouncer's clients: " << json(clients).dump());
  CHECK(clients.count(served.name + " pool") == 1);
  CHECK(clients.count(served.name + " export") == 1);
  CHECK(clients.count(served.name + " listen") == 0);
  long long transactions = 0;
  for (const auto& stats : bouncer.show("STATS"))
    if (stats.at("database") == database.name())
      transactions = std::stoll(stats.at("total_xact_count"));
  CHECK(transactions > 100);
  const std::string listening =
      database.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" +
                       served.name + " listen' AND datname = current_database()");
  INFO("PostgreSQL's sessions: " << database.execute(
           "SELECT string_agg(application_name, ', ') FROM pg_stat_activity "
           "WHERE datname = current_database()"));
  CHECK(listening == "1");

  served.process.process->signal(SIGTERM);
  CHECK(served.process.process->wait(60s) == 0);
}

}  // namespace pgbouncer_test

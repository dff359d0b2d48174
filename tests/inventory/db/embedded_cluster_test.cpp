// These tests start their own clusters in temporary directories, not the run's shared one.
#include "inventory/db/embedded_cluster.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <pqxx/pqxx>
#include <thread>

#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"
#include "tests/support/test_cluster.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace embedded_cluster_test {

namespace fs = std::filesystem;
using ironhold::db::EmbeddedCluster;
using ironhold::test::TempDir;
using namespace std::chrono_literals;

namespace {

constexpr auto reachable = fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec;

bool is_root() {
  return geteuid() == 0;
}

bool under(const fs::path& path, const fs::path& dir) {
  auto rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

// A data directory in a temporary directory, and everything a cluster put outside it (relocated
// files, a socket directory under /tmp) removed afterwards, with the server stopped first.
class Scratch {
 public:
  // `open`: the temporary directory can be traversed by others, as most data directories can.
  explicit Scratch(bool open = true, const std::string& sub = "data") {
    if (open) fs::permissions(tmp_.path(), reachable);
    data_ = tmp_.path() / sub;
    fs::create_directories(data_);
    if (open) fs::permissions(data_, reachable);
  }
  ~Scratch() {
    try {
      ironhold::db::stop_embedded_cluster(data_);
    } catch (const std::exception& e) {
      WARN("stopping a test cluster failed: " << e.what());
    }
    for (const auto& path : outside_) fs::remove_all(path);
  }

  const fs::path& data_dir() const { return data_; }
  void remove_afterwards(const fs::path& path) { outside_.push_back(path); }

  std::unique_ptr<EmbeddedCluster> start() {
    auto cluster = EmbeddedCluster::start({.data_dir = data_, .start_timeout = 60s});
    for (const fs::path& path : {cluster->cluster_dir().parent_path(), cluster->socket_dir()})
      if (!under(path, tmp_.path())) outside_.push_back(path);
    return cluster;
  }

 private:
  TempDir tmp_;
  fs::path data_;
  std::vector<fs::path> outside_;
};

bool can_connect(const std::string& url) {
  try {
    pqxx::connection c(url);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::string query_value(const std::string& url, const std::string& sql) {
  pqxx::connection c(url);
  pqxx::nontransaction tx(c);
  auto row = tx.exec1(sql);
  return row[0].is_null() ? "<null>" : row[0].as<std::string>();
}

void exec(const std::string& url, const std::string& sql) {
  pqxx::connection c(url);
  pqxx::nontransaction tx(c);
  tx.exec(sql);
}

// By exception type: libpqxx 6.4 leaves sqlstate() empty for insufficient_privilege.
bool refused(const std::string& url, const std::string& sql) {
  try {
    exec(url, sql);
    return false;
  } catch (const pqxx::insufficient_privilege&) {
    return true;
  }
}

// A fresh database has no table `kept`.
bool refused_missing_table(const std::string& url) {
  try {
    query_value(url, "SELECT v FROM kept");
    return false;
  } catch (const pqxx::undefined_table&) {
    return true;
  }
}

pid_t postmaster_pid(const EmbeddedCluster& cluster) {
  std::ifstream in(cluster.cluster_dir() / "postmaster.pid");
  pid_t pid = 0;
  in >> pid;
  return pid;
}

}  // namespace

TEST_CASE("the embedded cluster is created and started under a fresh data directory") {
  Scratch scratch;
  auto cluster = scratch.start();
  CHECK(cluster->owns_server());
  CHECK(under(cluster->cluster_dir(), scratch.data_dir()));
  CHECK(fs::exists(cluster->cluster_dir() / "PG_VERSION"));
  CHECK(query_value(cluster->owner_url(), "SELECT current_database()") == "ironhold");
  CHECK(query_value(cluster->superuser_url(), "SHOW server_version_num").starts_with("15"));
}

TEST_CASE("the embedded cluster is reachable only through its private Unix socket") {
  Scratch scratch;
  auto cluster = scratch.start();
  CHECK(query_value(cluster->superuser_url(), "SHOW listen_addresses").empty());
  CHECK(query_value(cluster->superuser_url(), "SELECT inet_server_addr()") == "<null>");
  CHECK(query_value(cluster->superuser_url(), "SHOW unix_socket_directories") ==
        cluster->socket_dir().string());
  struct stat st {};
  REQUIRE(stat(cluster->socket_dir().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  CHECK_FALSE(can_connect(
      "host=127.0.0.1 port=5432 dbname=postgres user=ironhold_super connect_timeout=3"));
}

TEST_CASE("the runtime role uses the owner's tables but cannot create or drop any") {
  Scratch scratch;
  auto cluster = scratch.start();
  const std::string owner = cluster->owner_url(), runtime = cluster->runtime_url();
  CHECK(query_value(owner,
                    "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'ironhold'") ==
        ironhold::db::owner_role);
  CHECK(query_value(owner, "SELECT rolsuper::text FROM pg_roles WHERE rolname = current_user") ==
        "false");

  exec(owner,
       "CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL);"
       "CREATE FUNCTION item_count() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM items';");
  exec(runtime,
       "INSERT INTO items (name) VALUES ('a'), ('b');"
       "UPDATE items SET name = 'c' WHERE name = 'b';"
       "DELETE FROM items WHERE name = 'a';");
  CHECK(query_value(runtime, "SELECT item_count()") == "1");
  CHECK(query_value(runtime, "SELECT name FROM items") == "c");

  CHECK(refused(runtime, "CREATE TABLE mine (id int)"));
  CHECK(refused(runtime, "DROP TABLE items"));
  CHECK(refused(runtime, "ALTER TABLE items ADD COLUMN extra int"));
}

TEST_CASE(
    "the service's cluster waits for the disk at every commit, the tests' throwaway one not") {
  Scratch scratch;
  {
    auto cluster = scratch.start();
    CHECK(query_value(cluster->superuser_url(), "SHOW fsync") == "on");
    CHECK(query_value(cluster->superuser_url(), "SHOW synchronous_commit") == "on");
    CHECK(query_value(cluster->superuser_url(), "SHOW full_page_writes") == "on");
    cluster->stop();
  }
  auto throwaway = EmbeddedCluster::start({.data_dir = scratch.data_dir(), .durable = false});
  CHECK(query_value(throwaway->superuser_url(), "SHOW fsync") == "off");
  CHECK(query_value(throwaway->superuser_url(), "SHOW synchronous_commit") == "off");
  throwaway->stop();
  // Started again as the service would: durable again, whatever the last start wrote.
  auto again = scratch.start();
  CHECK(query_value(again->superuser_url(), "SHOW fsync") == "on");
}

TEST_CASE("a restarted cluster keeps its data") {
  Scratch scratch;
  auto cluster = scratch.start();
  exec(cluster->owner_url(), "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here');");
  const std::string url = cluster->owner_url();
  cluster.reset();
  CHECK_FALSE(can_connect(url));

  cluster = scratch.start();
  CHECK(cluster->owns_server());
  CHECK(query_value(cluster->owner_url(), "SELECT v FROM kept") == "still here");
}

TEST_CASE("a second cluster object attaches to the running server without owning it") {
  Scratch scratch;
  auto first = scratch.start();
  auto second = scratch.start();
  CHECK(first->owns_server());
  CHECK_FALSE(second->owns_server());
  CHECK(second->runtime_url() == first->runtime_url());
  second->stop();
  second.reset();
  CHECK(can_connect(first->runtime_url()));
  first->stop();
  first->stop();  // idempotent
  CHECK_FALSE(can_connect(first->runtime_url()));
}

TEST_CASE("a server left running by a killed ironhold is adopted and stopped by the next one") {
  Scratch scratch;
  // The child starts the server and dies without any cleanup, like `kill -9` of ironhold.
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    try {
      auto cluster = EmbeddedCluster::start({.data_dir = scratch.data_dir()});
      (void)cluster.release();
      _exit(0);
    } catch (...) {
      _exit(1);
    }
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);

  auto cluster = scratch.start();
  CHECK(cluster->owns_server());
  CHECK(can_connect(cluster->runtime_url()));
  cluster.reset();
  CHECK(ironhold::db::stop_embedded_cluster(scratch.data_dir()) == false);
}

TEST_CASE("a stale postmaster.pid naming a live non-postgres process is cleared at start") {
  Scratch scratch;
  auto cluster = scratch.start();
  const fs::path pid_file = cluster->cluster_dir() / "postmaster.pid";
  cluster.reset();
  REQUIRE_FALSE(fs::exists(pid_file));
  // This test process is alive and is not postgres: PostgreSQL alone would refuse to start.
  std::ofstream(pid_file) << getpid() << "\n" << scratch.data_dir().string() << "\n";

  cluster = scratch.start();
  CHECK(cluster->owns_server());
  CHECK(can_connect(cluster->runtime_url()));
}

TEST_CASE("a postmaster killed with SIGKILL is replaced by a new one at the next start") {
  Scratch scratch;
  auto cluster = scratch.start();
  const pid_t postmaster = postmaster_pid(*cluster);
  REQUIRE(postmaster > 0);
  cluster->detach();  // keep the crashed server's leftovers for the next start to deal with
  cluster.reset();
  REQUIRE(kill(postmaster, SIGKILL) == 0);

  cluster = scratch.start();
  CHECK(cluster->owns_server());
  CHECK(postmaster_pid(*cluster) != postmaster);
  CHECK(can_connect(cluster->runtime_url()));
}

TEST_CASE("a socket path longer than 107 bytes moves to a short private directory") {
  Scratch scratch(true, ironhold::util::concat(std::string(60, 'd'), "/", std::string(60, 'e')));
  auto cluster = scratch.start();
  CHECK(cluster->socket_dir().string().starts_with("/tmp/ironhold-"));
  struct stat st {};
  REQUIRE(stat(cluster->socket_dir().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  CHECK(can_connect(cluster->runtime_url()));
}

TEST_CASE("as root, a data directory the database user cannot reach gets its cluster relocated") {
  if (!is_root()) {
    WARN("skipped: needs root (the cluster then runs as an unprivileged user)");
    return;
  }
  Scratch scratch(false);  // under a 0700 directory, like a clone in /root
  auto cluster = scratch.start();
  CHECK_FALSE(under(cluster->cluster_dir(), scratch.data_dir()));
  CHECK(cluster->cluster_dir().string().starts_with("/var/lib/ironhold/clusters/"));
  CHECK(fs::exists(scratch.data_dir() / "postgres.location"));
  struct stat st {};
  REQUIRE(stat(cluster->cluster_dir().c_str(), &st) == 0);
  CHECK(st.st_uid != 0);
  exec(cluster->owner_url(), "CREATE TABLE kept (v int); INSERT INTO kept VALUES (7);");

  const fs::path where = cluster->cluster_dir();
  cluster.reset();
  cluster = scratch.start();
  CHECK(cluster->cluster_dir() == where);
  CHECK(query_value(cluster->runtime_url(), "SELECT v FROM kept") == "7");
}

// The operator deletes a data directory (rm -rf) and starts again at the same path. Its database
// was relocated, so it survived the deletion, sealed with the master key that went with the
// directory: it must not be adopted (every credential would fail to open), nor destroyed.
TEST_CASE(
    "as root, a relocated database whose data directory was deleted is set aside, not reused") {
  if (!is_root()) {
    WARN("skipped: needs root (the cluster then runs as an unprivileged user)");
    return;
  }
  Scratch scratch(false);
  auto cluster = scratch.start();
  const fs::path where = cluster->cluster_dir().parent_path();
  REQUIRE(where.string().starts_with("/var/lib/ironhold/clusters/"));
  exec(cluster->owner_url(), "CREATE TABLE kept (v int); INSERT INTO kept VALUES (7);");
  const pid_t running = postmaster_pid(*cluster);

  fs::remove_all(scratch.data_dir());
  fs::create_directories(scratch.data_dir());
  // While the old server still runs, nothing is moved: the start fails and says which process.
  try {
    EmbeddedCluster::start({.data_dir = scratch.data_dir(), .start_timeout = 60s});
    FAIL("a new cluster started beside the old one still running");
  } catch (const ironhold::Error& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("still running") && Catch::Contains(std::to_string(running)));
  }
  CHECK(fs::exists(where / "data" / "PG_VERSION"));

  cluster.reset();  // stops the old server
  cluster = scratch.start();
  CHECK(cluster->cluster_dir().parent_path() == where);
  CHECK(refused_missing_table(cluster->runtime_url()));
  std::vector<fs::path> aside;
  for (const auto& entry : fs::directory_iterator(where.parent_path()))
    if (entry.path().filename().string().starts_with(where.filename().string() + ".orphaned-"))
      aside.push_back(entry.path());
  for (const auto& path : aside) scratch.remove_afterwards(path);
  REQUIRE(aside.size() == 1);
  CHECK(fs::exists(aside.front() / "data" / "PG_VERSION"));  // kept whole, for its owner
}

}  // namespace embedded_cluster_test

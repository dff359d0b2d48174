#pragma once
// The embedded default: a private PostgreSQL cluster for a data directory, started with Debian's
// server binaries (/usr/lib/postgresql/15/bin or `pg_config --bindir`), reachable only through a
// Unix socket (no TCP). Database `ironhold` is owned by an owner role (migrations) and used by a
// separate runtime role (the service). As root the cluster runs as an unprivileged system user,
// and where that user cannot reach the data directory, the cluster's files live in a place it can
// reach, tied to the data directory. The tests get their databases from this same code.
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

namespace ironhold::db {

struct EmbeddedClusterOptions {
  std::filesystem::path data_dir = ".ironhold";
  std::chrono::seconds start_timeout{60};
  // False for throwaway clusters (the test suite's): no fsync, no waiting for the WAL at commit,
  // no full-page images. An operating-system crash may then corrupt the cluster; a crash of
  // PostgreSQL or of ironhold still loses nothing committed. Applied when this call starts it.
  bool durable = true;
};

class EmbeddedCluster {
 public:
  // Creates the cluster on first use, then starts it, or attaches to it when it is already running
  // (another ironhold command on the same data directory). A stale pid file left by a crash is
  // cleared. Throws ironhold::Error with an actionable message on failure.
  static std::unique_ptr<EmbeddedCluster> start(const EmbeddedClusterOptions& options);
  // Stops the cluster if this object started it (or adopted it from an owner that died).
  ~EmbeddedCluster();
  EmbeddedCluster(const EmbeddedCluster&) = delete;
  EmbeddedCluster& operator=(const EmbeddedCluster&) = delete;

  // Fast shutdown now (idempotent). Only stops a cluster this object owns.
  void stop();
  // Keep the cluster running after this object is destroyed (the test fixture's start command).
  void detach();

  // libpq connection strings (key=value form, socket directory as host).
  std::string owner_url(const std::string& database = "ironhold") const;
  std::string runtime_url(const std::string& database = "ironhold") const;
  // The bootstrap superuser, for CREATE/DROP DATABASE in tests.
  std::string superuser_url(const std::string& database = "postgres") const;

  // A database owned by the owner role whose tables the runtime role may use, like `ironhold`;
  // copied from `template_database` (a migrated template in tests). Throws on an existing name.
  void create_database(const std::string& name,
                       const std::string& template_database = "template0") const;
  // Drops it even while sessions are connected (WITH (FORCE)); no error when it does not exist.
  void drop_database(const std::string& name) const;

  const std::filesystem::path& data_dir() const noexcept;
  const std::filesystem::path& cluster_dir() const noexcept;  // PGDATA
  const std::filesystem::path& socket_dir() const noexcept;
  bool owns_server() const noexcept;  // true when this object will stop it

  struct State;

 private:
  explicit EmbeddedCluster(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Role names inside the embedded cluster.
inline constexpr const char* owner_role = "ironhold_owner";
inline constexpr const char* runtime_role = "ironhold";

// The directory holding Debian's PostgreSQL server binaries (initdb, pg_ctl, postgres).
std::filesystem::path find_postgres_bindir();

// Fast shutdown of the cluster of `data_dir`, whoever started it (the test fixture's stop
// command, `detach()`ed clusters). Returns false when none was running.
bool stop_embedded_cluster(const std::filesystem::path& data_dir,
                           std::chrono::seconds timeout = std::chrono::seconds(60));

}  // namespace ironhold::db

#pragma once
// What the benchmarks of the whole service share: a private PostgreSQL cluster started by the
// benchmark (the operator's --database), `ironhold serve` on it as a child process, an admin
// token, a small HTTP client, and what /proc says about a process. Every piece stops what it
// started in its destructor; SIGINT and SIGTERM turn into an exception in the waits, so an
// interrupted benchmark still unwinds and leaves no simulator, service or cluster behind.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ironhold::bench {

namespace fs = std::filesystem;

// Call first in main(). Child processes get SIGTERM when the benchmark dies (PR_SET_PDEATHSIG).
void stop_on_signals();
// Throws std::runtime_error("interrupted") once SIGINT or SIGTERM arrived.
void throw_if_stopped();
bool stop_requested();  // for threads, which must not throw
// sleep_for that wakes for a signal (throws then).
void pause_for(std::chrono::milliseconds duration);

// RLIMIT_NOFILE's soft limit raised to the hard one; children inherit it.
void raise_fd_limit();

class TempDir {
 public:
  TempDir();  // /tmp/ih-bench-XXXXXX
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Counters of pg_stat_database for the benchmark's database.
struct DatabaseCounters {
  long long xact_commit = 0, tup_inserted = 0, tup_updated = 0, tup_deleted = 0;
  // Background work that competes with a sweep for the cores: autovacuum and autoanalyze runs
  // over the database's tables, and checkpoints (timed or requested).
  long long autovacuums = 0, autoanalyzes = 0, checkpoints = 0;
  // WAL written (pg_stat_wal): its bytes, and how many records were full-page images, which the
  // first change of each page after a checkpoint writes (8 KiB each).
  long long wal_bytes = 0, wal_fpi = 0;
  // Per table of the database: rows inserted + updated + deleted, and rows read by sequential
  // scans (pg_stat_user_tables), to see which tables a sweep's database work went to.
  std::map<std::string, std::pair<long long, long long>> table_rows;
};

// The tables written or scanned between two readings, most written first: " name rows (seq
// read n)" for each.
std::string table_deltas(const DatabaseCounters& before, const DatabaseCounters& after);

// A private PostgreSQL cluster (Ironhold's embedded one, started here, not by the service) with
// the `ironhold` database migrated; the service is given its URL as --database. One connection of
// the benchmark's own runs the queries that set up and watch the benchmark.
class BenchDatabase {
 public:
  explicit BenchDatabase(const fs::path& dir);
  ~BenchDatabase();  // stops the cluster
  BenchDatabase(const BenchDatabase&) = delete;
  BenchDatabase& operator=(const BenchDatabase&) = delete;

  std::string url() const;  // the owner role: what `ironhold serve --database` gets here
  // Runs `sql` in a transaction of its own; the first column of the first row, or "".
  std::string query(const std::string& sql);
  // Every row, each column as text ("" for NULL).
  std::vector<std::vector<std::string>> rows(const std::string& sql);
  // Outside a transaction block (VACUUM).
  void run(const std::string& sql);
  // As the cluster's superuser, with the tables' triggers off (session_replication_role =
  // replica): a benchmark's own set-up that the change feed and the node history must not see.
  // The rows it changed.
  long long run_without_triggers(const std::string& sql);
  DatabaseCounters counters();
  // CPU seconds (user + system) of the postmaster and all its children now.
  double server_cpu_seconds() const;
  pid_t postmaster() const;
  const fs::path& socket_dir() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct ServeOptions {
  std::string ironhold;            // the binary
  std::string database_url;        // --database
  fs::path dir;                    // keys, data directory and log live here
  std::vector<std::string> extra;  // further serve options
};

// `ironhold serve --database URL --listen 127.0.0.1:PORT ...` on a free port, waited for until
// GET /healthz answers 200; its output goes to DIR/serve.log.
class ServeProcess {
 public:
  explicit ServeProcess(const ServeOptions& options);
  ~ServeProcess();  // SIGTERM, then SIGKILL after 30 s
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& url() const { return url_; }  // "http://127.0.0.1:PORT"
  const fs::path& log() const { return log_; }
  // `ironhold token create --role ROLE` on the same database and keys; the secret.
  std::string create_token(const std::string& role, const std::string& name) const;
  void stop();

 private:
  std::vector<std::string> key_args() const;
  ServeOptions options_;
  fs::path log_;
  pid_t pid_ = -1;
  std::string url_;
};

// A process's CPU (user + system, all threads) and memory, from /proc/PID/stat and status.
struct ProcessUsage {
  double cpu_seconds = 0;
  long rss_kib = 0, hwm_kib = 0;
};
ProcessUsage process_usage(pid_t pid);

struct Reply {
  long status = 0;  // 0: no answer (transport error)
  std::string body;
  std::string error;  // libcurl's message when status is 0
  nlohmann::json doc() const { return nlohmann::json::parse(body, nullptr, false); }
};

// One libcurl easy handle, reused (kept-alive connection), with an optional bearer token.
class Http {
 public:
  explicit Http(std::string token = {});
  ~Http();
  Http(const Http&) = delete;
  Http& operator=(const Http&) = delete;

  Reply get(const std::string& url) { return call("GET", url, {}); }
  Reply call(const std::string& method, const std::string& url, const std::string& body);

 private:
  void* curl_;
  void* headers_;
  std::string token_;
};

// `perf record -F 499 -g -p PID -o DIR/NAME.data` from construction to stop() or destruction;
// nothing when `dir` is empty (the benchmarks' --perf DIR option).
class PerfRecording {
 public:
  PerfRecording(const std::string& dir, const std::string& name, pid_t pid);
  ~PerfRecording();
  PerfRecording(const PerfRecording&) = delete;
  PerfRecording& operator=(const PerfRecording&) = delete;
  void stop();

 private:
  pid_t pid_ = -1;
};

// What else ran on the machine: the CPU the whole machine was busy (/proc/stat) minus that of
// this benchmark's own processes (itself, its descendants, and `cluster_postmaster` with its
// backends), as cores on average since construction. Short-lived foreign processes count too.
class ForeignLoad {
 public:
  explicit ForeignLoad(pid_t cluster_postmaster);
  double cores() const;

 private:
  pid_t postmaster_;
  double busy0_, own0_;
  std::chrono::steady_clock::time_point t0_;
};

// Waits (printing why) until other processes used less than `threshold` cores for 6 s in a row,
// at most `max_wait`; returns the seconds waited.
double wait_for_quiet(pid_t cluster_postmaster, std::chrono::seconds max_wait,
                      double threshold = 0.2);

double seconds_since(std::chrono::steady_clock::time_point t0);
double percentile(std::vector<double> values, double p);  // nearest rank, p in [0, 1]
// "load average 1.23 0.98 0.77" from /proc/loadavg.
std::string load_average();
// Whether a compiler (cc1plus) runs now: the figures then measure the neighbours too.
bool compiler_running();

}  // namespace ironhold::bench

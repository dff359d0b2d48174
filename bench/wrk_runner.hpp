#pragma once
// `wrk` (Debian package wrk) against the service on loopback: a Lua script that rotates through
// a file of request paths, the run's summary parsed, and the CPU the service, the database and
// wrk itself spent during the run (all three share the machine's cores).
#include <string>
#include <vector>

#include "bench/bench_service.hpp"

namespace ironhold::bench {

struct WrkRun {
  double requests_per_s = 0;
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;
  long requests = 0, non_2xx = 0, socket_errors = 0;
  double serve_cpu = 0, db_cpu = 0, wrk_cpu = 0;  // seconds during the run
  double foreign_cores = 0;                       // other processes during the run
  std::string output;                             // wrk's own text
};

// Writes DIR/NAME.lua, which sends GET for each line of `paths_file` in turn (each wrk thread
// from its own offset); returns the script's path.
fs::path write_rotating_script(const fs::path& dir, const std::string& name,
                               const fs::path& paths_file);

// wrk -t THREADS -c CONNECTIONS -d SECONDS --latency -s SCRIPT -H "Authorization: Bearer TOKEN"
// URL; throws when wrk cannot run or reports nothing.
WrkRun run_wrk(const fs::path& script, const std::string& url, const std::string& token,
               int threads, int connections, int seconds, pid_t serve, BenchDatabase& db);

}  // namespace ironhold::bench

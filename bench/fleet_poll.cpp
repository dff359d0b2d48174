// Power+health sweeps of a mixed fleet of simulated BMCs (Redfish and IPMI, in simulator
// processes of at most --per-process BMCs each) polled by one `ironhold serve` (the real binary, a
// child process) on a PostgreSQL cluster this benchmark starts. Every node is enrolled through
// the API; once the first polls have settled (inventory and sensor polls get long intervals so
// that the status sweep is alone), every status poll is made due at once and the sweep lasts
// until each node's status poll has finished again. Prints per sweep: wall time, the service's
// CPU per poll (/proc/PID/stat), the database's write rate (pg_stat_database), the service's RSS
// and peak RSS, and the CPU the database and the simulators spent. With --faulty P, P % of the
// BMCs then turn faulty (timeouts, resets, garbage, slow drip; IPMI: silence, loss, slowness) and
// the sweeps are timed again, for the healthy rest and for all.
//   fleet_poll --ironhold build-release/ironhold --mockup mockups/hgx-gpu-server
//              --redfish 8000 --ipmi 2000 --per-process 1000 --latency-ms 50 --sweeps 3
//              (a first sweep on connections opened again, then --sweeps more)
//              [--faulty 20] [--faulty-timeout 30] [--threads N] [--poll-max-in-flight N]
//              [--db-connections N] [--perf DIR] [--malloc-stats yes] [--poll-max-failing N]
//              [--poll-failing-wait-max MS] [--poll-max-inspections N] [--last-seen due|as-is]
//
// The service refreshes a node's last_seen at most once a minute (inventory/db/poll_record.cpp),
// so whether a sweep rewrites every answering node's row depended on how long after the last
// refresh it came: sweeps 24 s apart did it one time in three, faulty sweeps 52 s apart every
// other time, and that alone moved a 10,000-node sweep by 1.5 s. With --last-seen due (the
// default) the benchmark backdates last_seen by two minutes before each measured sweep (as the
// superuser, triggers off, so the change feed and node history do not see it): every sweep pays
// the refresh, the worst case, and sweeps compare like with like.
//              [--variants "default threads=1 poll-max-in-flight=250"] [--variant-sweeps 3]

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "bench/bench_service.hpp"
#include "bench/bench_util.hpp"
#include "bench/sim_processes.hpp"
#include "inventory/util/process.hpp"

using namespace ironhold;
using bench::arg;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

struct FleetNode {
  const bench::SimulatedBmc* bmc = nullptr;
  std::string name, driver;
  bool faulty = false;  // chosen at enrollment; faults are set only for the faulty sweeps
  std::string fault;    // its name, a tag of the node ("healthy" for the others)
  json faults;          // what the simulator is told then
};

struct Fault {
  const char* name;
  json settings;
};

// P % of each simulator kind, spread evenly, with the kinds of fault taken in turn.
std::vector<FleetNode> plan_fleet(const bench::SimProcesses& redfish,
                                  const bench::SimProcesses* ipmi, unsigned faulty_percent,
                                  unsigned latency_ms) {
  std::vector<FleetNode> fleet;
  // Every (100/P)th BMC, spread evenly however P divides 100.
  const auto faulty = [faulty_percent](std::size_t i) {
    return faulty_percent > 0 && (i * faulty_percent) % 100 >= 100 - faulty_percent;
  };
  const std::vector<Fault> redfish_faults = {
      {"rf-timeout", {{"latency_ms", latency_ms}, {"timeout", true}}},
      {"rf-reset", {{"latency_ms", latency_ms}, {"reset_connections", true}}},
      {"rf-invalid-json", {{"latency_ms", latency_ms}, {"invalid_json", true}}},
      {"rf-slow-drip", {{"latency_ms", latency_ms}, {"slow_drip_ms", 200}}},
      {"rf-truncated-json", {{"latency_ms", latency_ms}, {"truncated_json", true}}},
  };
  const std::vector<Fault> ipmi_faults = {
      {"ipmi-no-answer", {{"no_answer", true}}},
      {"ipmi-loss-50", {{"delay_ms", latency_ms}, {"loss", 0.5}}},
      {"ipmi-slow-2s", {{"delay_ms", 2000}}},
  };
  const auto assign = [](FleetNode& node, const Fault& fault) {
    node.fault = fault.name;
    node.faults = fault.settings;
  };
  std::size_t n = 0;
  for (std::size_t i = 0; i < redfish.bmcs().size(); ++i) {
    FleetNode node{&redfish.bmcs()[i], "rf-" + std::to_string(100000 + i).substr(1), "redfish"};
    node.faulty = faulty(i);
    node.fault = "healthy";
    if (node.faulty) assign(node, redfish_faults[n++ % redfish_faults.size()]);
    fleet.push_back(std::move(node));
  }
  n = 0;
  for (std::size_t i = 0; ipmi && i < ipmi->bmcs().size(); ++i) {
    FleetNode node{&ipmi->bmcs()[i], "ipmi-" + std::to_string(100000 + i).substr(1), "ipmi"};
    node.faulty = faulty(i);
    node.fault = "healthy";
    if (node.faulty) assign(node, ipmi_faults[n++ % ipmi_faults.size()]);
    fleet.push_back(std::move(node));
  }
  return fleet;
}

json enrollment(const FleetNode& node, std::size_t index) {
  // Appended rather than "literal" + to_string(): GCC 12 warns (-Wrestrict) about the latter
  // inlined here, a known false positive.
  const std::size_t rack = index / 40;
  std::string site = "site-", rack_name = "r";
  site += std::to_string(rack / 25);
  rack_name += std::to_string(rack);
  return {
      {"name", node.name},
      {"driver", node.driver},
      {"endpoint", node.bmc->endpoint},
      {"credentials", {{"username", node.bmc->username}, {"password", node.bmc->password}}},
      {"location",
       {{"site", site}, {"rack", rack_name}, {"unit", static_cast<int>(index % 40) + 1}}},
      {"tags", {{"bench_group", node.faulty ? "faulty" : "healthy"}, {"bench_fault", node.fault}}}};
}

// Enrolls every node through POST /api/v1/nodes from a few client threads.
void enroll(const std::vector<FleetNode>& fleet, const std::string& url, const std::string& token,
            unsigned clients) {
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::string failure;
  auto work = [&] {
    bench::Http http(token);
    for (;;) {
      const std::size_t i = next++;
      if (i >= fleet.size() || bench::stop_requested()) return;
      {
        std::lock_guard lock(failure_mutex);
        if (!failure.empty()) return;
      }
      const bench::Reply r =
          http.call("POST", url + "/api/v1/nodes", enrollment(fleet[i], i).dump());
      if (r.status != 201) {
        std::lock_guard lock(failure_mutex);
        failure = fleet[i].name + ": HTTP " + std::to_string(r.status) + " " + r.error + r.body;
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < clients; ++i) threads.emplace_back(work);
  for (auto& t : threads) t.join();
  bench::throw_if_stopped();
  if (!failure.empty()) throw std::runtime_error("enrolling failed: " + failure);
}

// Every poll of every node has finished once (inspection, sensors, status), and none runs.
void settle(bench::BenchDatabase& db, std::chrono::seconds timeout) {
  const auto t0 = Clock::now();
  auto last_report = t0;
  for (;;) {
    const auto r = db.rows(
        "SELECT count(*) FILTER (WHERE last_finished IS NULL), "
        "       count(*) FILTER (WHERE lease_owner IS NOT NULL), count(*) FROM poll_schedule");
    if (r[0][0] == "0" && r[0][1] == "0") break;
    if (bench::seconds_since(t0) > static_cast<double>(timeout.count()))
      throw std::runtime_error("the first polls did not settle within the settle timeout: " +
                               r[0][0] + " of " + r[0][2] + " never finished");
    if (Clock::now() - last_report > 15s) {
      std::printf("  settling: %s of %s polls not finished yet (%.0f s)\n", r[0][0].c_str(),
                  r[0][2].c_str(), bench::seconds_since(t0));
      std::fflush(stdout);
      last_report = Clock::now();
    }
    bench::pause_for(500ms);
  }
  std::printf("first polls settled in %.1f s\n", bench::seconds_since(t0));
}

void print_outcomes(bench::BenchDatabase& db) {
  std::printf("  node outcomes:");
  for (const auto& r :
       db.rows("SELECT driver, coalesce(last_error, 'ok'), count(*) FROM nodes GROUP BY 1, 2 "
               "ORDER BY 1, 2"))
    std::printf("  %s/%s %s", r[0].c_str(), r[1].c_str(), r[2].c_str());
  std::printf("\n");
}

// Waits until no status poll of a healthy node is leased: what the sweep times starts from idle.
void wait_idle(bench::BenchDatabase& db) {
  for (int i = 0; i < 600; ++i) {
    if (db.query("SELECT count(*) FROM poll_schedule s JOIN nodes n ON n.id = s.node_id "
                 "WHERE s.kind = 'status' AND s.lease_owner IS NOT NULL "
                 "AND n.tags ->> 'bench_group' = 'healthy'") == "0")
      return;
    bench::pause_for(100ms);
  }
  throw std::runtime_error("status polls of healthy nodes stayed leased for 60 s");
}

struct Usage {
  double serve_cpu = 0, db_cpu = 0, sim_cpu = 0;
  long rss_kib = 0, hwm_kib = 0;
};

struct SweepFigures {
  double wall_all = -1, wall_healthy = -1;  // -1: not every node finished within the timeout
  std::size_t finished = 0, finished_healthy = 0, nodes = 0, healthy = 0;
  std::size_t polls_by_healthy_end = 0;     // status polls finished when the healthy ones all had
  Usage to_healthy_end, to_end;             // CPU from the start of the sweep
  long long commits = 0, rows = 0;          // written during the sweep, quiet rate taken out
  long long raw_commits = 0, raw_rows = 0;  // the counters' deltas as they are
  double quiet_commits_per_s = 0, quiet_rows_per_s = 0;
  double db_window = 0;     // seconds the database counters cover
  double loop_seconds = 0;  // from the sweep's UPDATE until the benchmark stopped watching it
  std::size_t serve_sockets = 0;
  double foreign_cores = 0;  // other processes on the machine, until the healthy had finished
  // PostgreSQL's background work over the counters' window (the sweep and 11 s after it).
  long long autovacuums = 0, autoanalyzes = 0, checkpoints = 0;
  long long wal_bytes = 0, wal_fpi = 0;
  std::string tables;  // bench::table_deltas over the window
};

double sims_cpu(const std::vector<const bench::SimProcesses*>& sims) {
  double total = 0;
  for (const auto* s : sims)
    for (pid_t pid : s->pids()) total += bench::process_usage(pid).cpu_seconds;
  return total;
}

Usage usage_now(bench::BenchDatabase& db, pid_t serve,
                const std::vector<const bench::SimProcesses*>& sims) {
  const bench::ProcessUsage u = bench::process_usage(serve);
  return {u.cpu_seconds, db.server_cpu_seconds(), sims_cpu(sims), u.rss_kib, u.hwm_kib};
}

Usage since(const Usage& a, const Usage& b) {
  return {b.serve_cpu - a.serve_cpu, b.db_cpu - a.db_cpu, b.sim_cpu - a.sim_cpu, b.rss_kib,
          b.hwm_kib};
}

// The sockets the service holds (its BMC connections, database, listener).
std::size_t socket_count(pid_t pid) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::error_code link_ec;
    if (fs::read_symlink(fd.path(), link_ec).string().rfind("socket:", 0) == 0) ++n;
  }
  return n;
}

// Every status poll due now, then wait until the healthy nodes' ones have finished again, with
// nothing measured: after a wait for the machine, the BMCs have closed their idle connections.
void rewarm(bench::BenchDatabase& db) {
  const std::string start = db.query(
      "WITH due AS (UPDATE poll_schedule SET next_due = now() WHERE kind = 'status' RETURNING 1) "
      "SELECT now()::text FROM due LIMIT 1");
  for (int i = 0; i < 720; ++i) {
    bench::pause_for(250ms);
    if (db.query("SELECT count(*) FROM poll_schedule s JOIN nodes n ON n.id = s.node_id "
                 "WHERE s.kind = 'status' AND n.tags ->> 'bench_group' = 'healthy' "
                 "AND (s.last_finished IS NULL OR s.last_finished < '" +
                 start + "'::timestamptz)") == "0")
      return;
  }
}

// PostgreSQL publishes a backend's counters at most once a second while it is busy and up to
// 10 s after it went idle: the counters are read after 11 s of quiet after a sweep (and before
// the first), and the quiet rate (the poller's idle claims, its heartbeat; measured for 5 s
// before the sweep) is taken out for the quiet after it.
SweepFigures sweep(bench::BenchDatabase& db, pid_t serve,
                   const std::vector<const bench::SimProcesses*>& sims, bool faulty_phase,
                   std::chrono::seconds timeout, const std::string& perf_dir,
                   const std::string& name, std::chrono::seconds quiet_wait, bool last_seen_due) {
  wait_idle(db);
  if (quiet_wait.count() > 0 && bench::wait_for_quiet(db.postmaster(), quiet_wait) > 20) {
    std::printf("  an unmeasured sweep first, to open the connections the BMCs closed meanwhile\n");
    rewarm(db);
    wait_idle(db);
    bench::pause_for(11s);  // its counters published
  }
  if (last_seen_due) {
    const long long backdated = db.run_without_triggers(
        "UPDATE nodes SET last_seen = now() - interval '2 minutes' "
        " WHERE last_seen > now() - interval '2 minutes'");
    std::printf("  last_seen backdated on %lld nodes: this sweep refreshes it\n", backdated);
  }
  const auto quiet0 = db.counters();
  const auto q0 = Clock::now();
  bench::pause_for(5s);
  const bench::DatabaseCounters before = db.counters();
  const double quiet_seconds = bench::seconds_since(q0);
  SweepFigures f;
  // The read of quiet0 itself committed in this interval.
  f.quiet_commits_per_s =
      static_cast<double>(before.xact_commit - quiet0.xact_commit - 1) / quiet_seconds;
  f.quiet_rows_per_s = static_cast<double>(before.tup_inserted + before.tup_updated -
                                           quiet0.tup_inserted - quiet0.tup_updated) /
                       quiet_seconds;
  f.serve_sockets = socket_count(serve);

  bench::PerfRecording perf(perf_dir, name, serve);
  const Usage u0 = usage_now(db, serve, sims);
  const bench::ForeignLoad foreign(db.postmaster());
  long long own_transactions = 1;  // the read of `before`
  const auto t0 = Clock::now();
  const std::string start = db.query(
      "WITH due AS (UPDATE poll_schedule SET next_due = now() WHERE kind = 'status' RETURNING 1) "
      "SELECT now()::text FROM due LIMIT 1");
  ++own_transactions;
  const std::string since_start = "'" + start + "'::timestamptz";
  const std::string progress =
      "SELECT count(*), count(*) FILTER (WHERE h), count(*) FILTER (WHERE done), "
      "       count(*) FILTER (WHERE done AND h), "
      "       extract(epoch FROM max(last_finished) FILTER (WHERE done) - " +
      since_start +
      "), "
      "       extract(epoch FROM max(last_finished) FILTER (WHERE done AND h) - " +
      since_start +
      ") "
      "FROM (SELECT s.last_finished, s.last_finished >= " +
      since_start +
      " AS done, "
      "             n.tags ->> 'bench_group' = 'healthy' AS h "
      "        FROM poll_schedule s JOIN nodes n ON n.id = s.node_id "
      "       WHERE s.kind = 'status') p";
  bool healthy_done = false;
  std::vector<std::string> row;
  for (;;) {
    bench::pause_for(250ms);
    row = db.rows(progress)[0];
    ++own_transactions;
    f.nodes = std::stoul(row[0]);
    f.healthy = std::stoul(row[1]);
    f.finished = std::stoul(row[2]);
    f.finished_healthy = std::stoul(row[3]);
    if (f.finished_healthy == f.healthy && !healthy_done) {
      healthy_done = true;
      f.to_healthy_end = since(u0, usage_now(db, serve, sims));
      f.polls_by_healthy_end = f.finished;
      f.foreign_cores = foreign.cores();
      perf.stop();
    }
    if (f.finished == f.nodes) break;
    if (!faulty_phase && healthy_done) break;
    if (bench::seconds_since(t0) > static_cast<double>(timeout.count())) break;
  }
  f.loop_seconds = bench::seconds_since(t0);
  f.to_end = since(u0, usage_now(db, serve, sims));
  if (faulty_phase) {
    std::printf("  per kind of BMC: finished/all, status poll duration mean and max:");
    for (const auto& r :
         db.rows("SELECT n.tags ->> 'bench_fault', count(*) FILTER (WHERE s.last_finished >= " +
                 since_start +
                 "), count(*), round(avg(s.last_duration_ms) FILTER (WHERE "
                 "s.last_finished >= " +
                 since_start +
                 ")), round(max(s.last_duration_ms) FILTER "
                 "(WHERE s.last_finished >= " +
                 since_start +
                 ")) FROM poll_schedule s JOIN nodes n "
                 "ON n.id = s.node_id WHERE s.kind = 'status' GROUP BY 1 ORDER BY 1"))
      std::printf("  %s %s/%s %s ms %s ms", r[0].c_str(), r[1].c_str(), r[2].c_str(), r[3].c_str(),
                  r[4].c_str());
    std::printf("\n");
    ++own_transactions;
  }
  if (f.finished == f.nodes) f.wall_all = std::stod(row[4]);
  if (f.finished_healthy == f.healthy) f.wall_healthy = std::stod(row[5]);
  bench::pause_for(11s);
  const bench::DatabaseCounters after = db.counters();
  f.db_window = bench::seconds_since(t0);
  f.raw_commits = after.xact_commit - before.xact_commit;
  f.autovacuums = after.autovacuums - before.autovacuums;
  f.autoanalyzes = after.autoanalyzes - before.autoanalyzes;
  f.checkpoints = after.checkpoints - before.checkpoints;
  f.wal_bytes = after.wal_bytes - before.wal_bytes;
  f.wal_fpi = after.wal_fpi - before.wal_fpi;
  f.tables = bench::table_deltas(before, after);
  f.raw_rows = after.tup_inserted + after.tup_updated - before.tup_inserted - before.tup_updated;
  // Only the wait after the sweep is idle: what the service commits during the sweep (its claims
  // and heartbeats too) is the sweep's cost. The sweep's own UPDATE touched one row per node.
  const double idle_after = f.db_window - f.loop_seconds;
  f.commits =
      f.raw_commits - own_transactions - static_cast<long long>(f.quiet_commits_per_s * idle_after);
  f.rows = f.raw_rows - static_cast<long long>(f.nodes) -
           static_cast<long long>(f.quiet_rows_per_s * idle_after);
  return f;
}

void print_usage(const Usage& u, std::size_t polls) {
  const double n = static_cast<double>(std::max<std::size_t>(polls, 1));
  std::printf(
      "serve cpu %.2f s = %.3f ms/poll, postgres cpu %.2f s = %.3f ms/poll, sims cpu %.2f s",
      u.serve_cpu, 1000 * u.serve_cpu / n, u.db_cpu, 1000 * u.db_cpu / n, u.sim_cpu);
}

void print(const char* name, const SweepFigures& f, bool faulty_phase) {
  if (faulty_phase) {
    std::printf("%-13s healthy %zu/%zu in %6.2f s", name, f.finished_healthy, f.healthy,
                f.wall_healthy);
    if (f.wall_all >= 0)
      std::printf(", all %zu in %6.2f s\n", f.nodes, f.wall_all);
    else
      std::printf(", all: %zu of %zu finished within the timeout\n", f.finished, f.nodes);
    std::printf("  until the healthy had finished (%zu polls): ", f.polls_by_healthy_end);
    print_usage(f.to_healthy_end, f.polls_by_healthy_end);
    std::printf("\n  until the end (%zu polls): ", f.finished);
    print_usage(f.to_end, f.finished);
  } else {
    std::printf("%-13s %zu polls in %6.2f s\n  ", name, f.finished, f.wall_all);
    print_usage(f.to_end, f.finished);
  }
  const double wall = faulty_phase ? f.loop_seconds : f.wall_all;
  std::printf(
      "\n  db: %lld commits, %lld rows inserted+updated = %.0f commits/s, %.0f rows/s over %.1f "
      "s (counters' deltas over %.1f s: %lld commits, %lld rows; taken out: the benchmark's own "
      "queries, its UPDATE of every status poll and the quiet rate after the sweep, %.1f "
      "commits/s, "
      "%.1f rows/s)\n",
      f.commits, f.rows, static_cast<double>(f.commits) / wall, static_cast<double>(f.rows) / wall,
      wall, f.db_window, f.raw_commits, f.raw_rows, f.quiet_commits_per_s, f.quiet_rows_per_s);
  std::printf(
      "  postgres in the background over those %.1f s: %lld autovacuum, %lld autoanalyze, "
      "%lld checkpoint runs; WAL %.1f MiB, %lld full-page "
      "images\n  rows written per table:%s\n",
      f.db_window, f.autovacuums, f.autoanalyzes, f.checkpoints,
      static_cast<double>(f.wal_bytes) / (1024.0 * 1024.0), f.wal_fpi, f.tables.c_str());
  std::printf(
      "  serve rss %ld MiB, hwm %ld MiB, %zu sockets at the start  (other processes %.2f cores; "
      "%s%s)\n",
      f.to_end.rss_kib / 1024, f.to_end.hwm_kib / 1024, f.serve_sockets, f.foreign_cores,
      bench::load_average().c_str(), bench::compiler_running() ? ", a compiler was running" : "");
  std::fflush(stdout);
}

// glibc's malloc_stats() of the service (through gdb; it writes to the service's stderr): how
// much of the RSS the heap holds in use, and how much it keeps free.
void print_malloc_stats(const bench::ServeProcess& serve) {
  const auto size_before = fs::file_size(serve.log());
  const auto r = util::run_process("/usr/bin/gdb", {"-p", std::to_string(serve.pid()), "-batch",
                                                    "-ex", "call (void) malloc_stats()"});
  if (!r.ok()) {
    std::printf("gdb failed: %s\n", r.status_text().c_str());
    return;
  }
  std::ifstream log(serve.log());
  log.seekg(static_cast<std::streamoff>(size_before));
  std::printf("malloc_stats() of serve:\n");
  for (std::string line; std::getline(log, line);)
    if (line.find("bytes") != std::string::npos || line.find("Total") != std::string::npos)
      std::printf("  %s\n", line.c_str());
  // What of the RSS is memory the heap keeps free: malloc_trim(0) returns it to the system.
  const auto before = bench::process_usage(serve.pid());
  util::run_process("/usr/bin/gdb", {"-p", std::to_string(serve.pid()), "-batch", "-ex",
                                     "call (int) malloc_trim(0)"});
  std::printf("serve rss %ld MiB before malloc_trim(0), %ld MiB after\n", before.rss_kib / 1024,
              bench::process_usage(serve.pid()).rss_kib / 1024);
}

using Variant = std::vector<std::pair<std::string, std::string>>;

std::vector<Variant> parse_variants(const std::string& text) {
  std::vector<Variant> variants;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    Variant v;
    std::istringstream pairs(word);
    for (std::string pair; std::getline(pairs, pair, ',');) {
      const auto eq = pair.find('=');
      if (pair == "default") continue;
      if (eq == std::string::npos)
        throw std::runtime_error("--variants: \"" + pair + "\" is not OPTION=VALUE");
      v.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
    }
    variants.push_back(std::move(v));
  }
  return variants;
}

// The faulty BMCs back to the added latency alone.
void clear_faults(const std::vector<FleetNode>& fleet, unsigned latency_ms) {
  bench::Http http;
  for (const auto& node : fleet) {
    if (!node.faulty) continue;
    const json faults =
        node.driver == "ipmi" ? json{{"delay_ms", latency_ms}} : json{{"latency_ms", latency_ms}};
    http.call("PUT", node.bmc->control + "/bmcs/" + std::to_string(node.bmc->index) + "/faults",
              faults.dump());
  }
}

void set_faults(const std::vector<FleetNode>& fleet) {
  bench::Http http;
  for (const auto& node : fleet) {
    if (!node.faulty) continue;
    const std::string url =
        node.bmc->control + "/bmcs/" + std::to_string(node.bmc->index) + "/faults";
    const bench::Reply r = http.call("PUT", url, node.faults.dump());
    if (r.status != 200)
      throw std::runtime_error("setting faults via " + url +
                               " failed: " + std::to_string(r.status) + " " + r.body);
  }
}

int run(int argc, char** argv) {
  const std::string ironhold = arg(argc, argv, "ironhold", "build-release/ironhold");
  const std::string mockup = arg(argc, argv, "mockup", "mockups/hgx-gpu-server");
  const unsigned redfish_count =
      static_cast<unsigned>(std::stoul(arg(argc, argv, "redfish", "8000")));
  const unsigned ipmi_count = static_cast<unsigned>(std::stoul(arg(argc, argv, "ipmi", "2000")));
  const unsigned per_process =
      static_cast<unsigned>(std::stoul(arg(argc, argv, "per-process", "1000")));
  const unsigned latency = static_cast<unsigned>(std::stoul(arg(argc, argv, "latency-ms", "50")));
  const unsigned sweeps = static_cast<unsigned>(std::stoul(arg(argc, argv, "sweeps", "3")));
  const unsigned faulty = static_cast<unsigned>(std::stoul(arg(argc, argv, "faulty", "0")));
  const unsigned clients =
      static_cast<unsigned>(std::stoul(arg(argc, argv, "enroll-clients", "4")));
  const auto settle_timeout =
      std::chrono::seconds(std::stol(arg(argc, argv, "settle-timeout", "900")));
  const auto sweep_timeout =
      std::chrono::seconds(std::stol(arg(argc, argv, "sweep-timeout", "180")));
  // A faulty sweep waits this long (from its start) for the faulty BMCs; a silent Redfish BMC
  // holds its poll for minutes (3 attempts of 30 s per request), so "all" is rarely reached. Kept
  // short so that the next sweep finds the healthy BMCs' connections still open: the simulated
  // BMCs close a connection idle for 60 s, and a sweep on new connections (TLS handshakes) is a
  // different figure (printed as such for the first sweep after the enrollment).
  const auto faulty_timeout =
      std::chrono::seconds(std::stol(arg(argc, argv, "faulty-timeout", "30")));
  const std::string perf_dir = arg(argc, argv, "perf", "");
  // Before each sweep, wait up to this long until other processes (compilers, test suites) leave
  // the cores alone; 0: do not wait. Each sweep says how busy the rest of the machine was.
  const auto quiet_wait = std::chrono::seconds(std::stol(arg(argc, argv, "wait-quiet", "900")));
  const std::string last_seen = arg(argc, argv, "last-seen", "due");
  if (last_seen != "due" && last_seen != "as-is") {
    std::fprintf(stderr, "--last-seen must be due or as-is\n");
    return 2;
  }
  const bool last_seen_due = last_seen == "due";
  // Further service configurations timed on the same fleet and database, each by restarting
  // serve: "default threads=1 poll-max-in-flight=250,threads=1" (a cold sweep, then steady ones).
  const auto variants = parse_variants(arg(argc, argv, "variants", ""));
  const unsigned variant_sweeps =
      static_cast<unsigned>(std::stoul(arg(argc, argv, "variant-sweeps", "3")));
  const bool malloc_stats = arg(argc, argv, "malloc-stats", "no") == "yes";
  std::vector<std::string> serve_extra = {"--poll-status-interval",
                                          "3600",
                                          "--poll-sensors-interval",
                                          "86400",
                                          "--poll-inventory-interval",
                                          "86400",
                                          "--no-event-subscriptions",
                                          "--log-level",
                                          "warn"};
  bench::pass_through(argc, argv,
                      {"threads", "poll-max-in-flight", "db-connections", "poll-lease",
                       "poll-slow-after", "poll-max-slow", "poll-max-failing",
                       "poll-failing-wait-max", "poll-max-inspections", "bmc-http-client"},
                      serve_extra);

  bench::stop_on_signals();
  bench::raise_fd_limit();
  bench::TempDir dir;
  std::printf("starting PostgreSQL in %s...\n", dir.path().c_str());
  std::fflush(stdout);
  bench::BenchDatabase db(dir.path());

  std::printf("starting %u Redfish and %u IPMI simulated BMCs (%u per process)...\n", redfish_count,
              ipmi_count, per_process);
  std::fflush(stdout);
  const auto t_sims = Clock::now();
  bench::SimProcesses redfish(ironhold, {"redfish", "--mockup", mockup}, redfish_count, per_process,
                              19500);
  std::unique_ptr<bench::SimProcesses> ipmi;
  if (ipmi_count > 0)
    ipmi = std::make_unique<bench::SimProcesses>(ironhold, std::vector<std::string>{"ipmi"},
                                                 ipmi_count, per_process, 19600);
  if (latency) {
    redfish.set_faults(json{{"latency_ms", latency}}.dump());
    if (ipmi) ipmi->set_faults(json{{"delay_ms", latency}}.dump());
  }
  std::printf("simulators ready in %.1f s\n", bench::seconds_since(t_sims));
  std::vector<const bench::SimProcesses*> sims = {&redfish};
  if (ipmi) sims.push_back(ipmi.get());
  const std::vector<FleetNode> fleet = plan_fleet(redfish, ipmi.get(), faulty, latency);

  auto serve = std::make_unique<bench::ServeProcess>(
      bench::ServeOptions{ironhold, db.url(), dir.path(), serve_extra});
  const std::string token = serve->create_token("admin", "bench");
  std::printf("ironhold serve (pid %d) at %s:", serve->pid(), serve->url().c_str());
  for (const auto& a : serve_extra) std::printf(" %s", a.c_str());
  std::printf("\n");

  const auto t_enroll = Clock::now();
  enroll(fleet, serve->url(), token, clients);
  std::printf("enrolled %zu nodes through the API in %.1f s (%u clients)\n", fleet.size(),
              bench::seconds_since(t_enroll), clients);
  std::fflush(stdout);
  settle(db, settle_timeout);
  print_outcomes(db);
  bench::pause_for(11s);  // the counters of the first polls published
  const auto settled = bench::process_usage(serve->pid());
  std::printf("serve after the first polls: rss %ld MiB, hwm %ld MiB, cpu %.1f s so far\n",
              settled.rss_kib / 1024, settled.hwm_kib / 1024, settled.cpu_seconds);

  // The first sweep comes minutes after most nodes' last poll: the BMCs have closed the idle
  // connections, so it opens them again (TLS handshakes, sessions reused). The next ones come
  // within the BMCs' idle timeout and reuse them, as polls every 30 s do.
  std::vector<double> walls;
  for (unsigned s = 0; s <= sweeps; ++s) {
    const SweepFigures f = sweep(db, serve->pid(), sims, false, sweep_timeout, perf_dir,
                                 "healthy-" + std::to_string(s), quiet_wait, last_seen_due);
    print(s == 0 ? "first sweep" : "healthy sweep", f, false);
    if (s > 0) walls.push_back(f.wall_all);
  }
  if (!walls.empty())
    std::printf("all-healthy sweeps after the first: min %.2f s, median %.2f s, max %.2f s\n",
                *std::min_element(walls.begin(), walls.end()), bench::percentile(walls, 0.5),
                *std::max_element(walls.begin(), walls.end()));
  print_outcomes(db);

  if (faulty > 0) {
    set_faults(fleet);
    std::printf("%u%% of the BMCs faulty now\n", faulty);
    std::vector<double> healthy_walls;
    for (unsigned s = 0; s < sweeps; ++s) {
      const SweepFigures f = sweep(db, serve->pid(), sims, true, faulty_timeout, perf_dir,
                                   "faulty-" + std::to_string(s + 1), quiet_wait, last_seen_due);
      print("faulty sweep", f, true);
      healthy_walls.push_back(f.wall_healthy);
    }
    if (!healthy_walls.empty())
      std::printf("healthy nodes in faulty sweeps: min %.2f s, median %.2f s, max %.2f s\n",
                  *std::min_element(healthy_walls.begin(), healthy_walls.end()),
                  bench::percentile(healthy_walls, 0.5),
                  *std::max_element(healthy_walls.begin(), healthy_walls.end()));
    print_outcomes(db);
  }
  const auto end = bench::process_usage(serve->pid());
  std::printf("serve at the end: rss %ld MiB, hwm %ld MiB, %zu sockets\n", end.rss_kib / 1024,
              end.hwm_kib / 1024, socket_count(serve->pid()));
  if (malloc_stats) print_malloc_stats(*serve);

  if (!variants.empty()) {
    // Every BMC healthy again, every node in the timed group.
    if (faulty > 0) clear_faults(fleet, latency);
    db.query(
        "UPDATE nodes SET tags = tags || '{\"bench_group\": \"healthy\"}' "
        "WHERE tags ->> 'bench_group' = 'faulty'");
  }
  for (const auto& variant : variants) {
    serve.reset();
    // No instance runs now: the leases the stopped one left are nobody's.
    db.query(
        "UPDATE poll_schedule SET lease_owner = NULL, lease_expires = NULL "
        "WHERE lease_owner IS NOT NULL");
    std::vector<std::string> flags = serve_extra;
    std::string label;
    for (const auto& [key, value] : variant) {
      flags.insert(flags.end(), {"--" + key, value});
      label += (label.empty() ? "" : " ") + ("--" + key + " " + value);
    }
    if (label.empty()) label = "default flags";
    serve = std::make_unique<bench::ServeProcess>(
        bench::ServeOptions{ironhold, db.url(), dir.path(), flags});
    std::printf("variant: serve restarted (pid %d) with %s\n", serve->pid(), label.c_str());
    std::vector<double> steady;
    for (unsigned s = 0; s < variant_sweeps; ++s) {
      const SweepFigures f = sweep(db, serve->pid(), sims, false, sweep_timeout, perf_dir,
                                   "variant-" + std::to_string(s + 1), quiet_wait, last_seen_due);
      print(s == 0 ? "cold sweep" : "steady sweep", f, false);
      if (s > 0) steady.push_back(f.wall_all);
    }
    if (!steady.empty())
      std::printf("variant %s: steady sweeps min %.2f s, median %.2f s, max %.2f s\n",
                  label.c_str(), *std::min_element(steady.begin(), steady.end()),
                  bench::percentile(steady, 0.5), *std::max_element(steady.begin(), steady.end()));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return ironhold::bench::run_main("fleet_poll", run, argc, argv);
}

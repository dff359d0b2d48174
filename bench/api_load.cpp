// The HTTP API under load: `ironhold serve` (no poller, no tasks, no event subscriptions: the API
// alone) over a database holding --nodes nodes written with SQL, driven by `wrk` on loopback.
// Two workloads, each at several connection counts: GET /api/v1/nodes/{id} rotating through every
// node in random order, and GET /api/v1/nodes?site=S&limit=1000 rotating through the sites (each
// site holds 1,000 nodes, so every answer lists 1,000). Prints requests/s, p50/p90/p99/max
// latency, and the CPU per request of the service, PostgreSQL and wrk, which share the cores.
//   api_load --ironhold build-release/ironhold --nodes 100000 --duration 15 --repeat 3
//            [--get-connections 1,8,32,128] [--list-connections 1,4,16] [--threads N]
//            [--db-connections N] [--prepared yes|no] [--perf DIR]
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "bench/bench_service.hpp"
#include "bench/bench_util.hpp"
#include "bench/synthetic_inventory.hpp"
#include "bench/wrk_runner.hpp"

using namespace ironhold;
using bench::arg;
namespace fs = std::filesystem;

namespace {

std::vector<int> int_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(std::stoi(item));
  return out;
}

void print_run(const char* what, int threads, int connections, const bench::WrkRun& r) {
  const double n = static_cast<double>(std::max<long>(r.requests, 1));
  std::printf(
      "%-10s t%d c%-4d %8.0f req/s  p50 %7.2f ms  p90 %7.2f ms  p99 %7.2f ms  max %7.2f ms  "
      "non-2xx %ld  socket errors %ld  cpu/request: serve %.3f ms, postgres %.3f ms, wrk %.3f "
      "ms  (other processes %.2f cores; %s%s)\n",
      what, threads, connections, r.requests_per_s, r.p50_ms, r.p90_ms, r.p99_ms, r.max_ms,
      r.non_2xx, r.socket_errors, 1000 * r.serve_cpu / n, 1000 * r.db_cpu / n, 1000 * r.wrk_cpu / n,
      r.foreign_cores, bench::load_average().c_str(),
      bench::compiler_running() ? ", a compiler was running" : "");
  std::fflush(stdout);
}

struct Series {
  std::vector<double> rps, p50, p99;
};

void workload(const char* what, const fs::path& script, const std::string& url,
              const std::string& token, const std::vector<int>& connections, int duration,
              int repeat, int warmup, const bench::ServeProcess& serve, bench::BenchDatabase& db,
              const std::string& perf_dir, std::chrono::seconds quiet_wait) {
  std::map<int, Series> series;
  for (int c : connections) {
    const int threads = std::min(2, c);
    for (int i = 0; i < repeat; ++i) {
      if (quiet_wait.count() > 0) bench::wait_for_quiet(db.postmaster(), quiet_wait);
      if (warmup > 0) bench::run_wrk(script, url, token, threads, c, warmup, serve.pid(), db);
      // The first run at each connection count under perf, when asked.
      bench::PerfRecording perf(i == 0 ? perf_dir : "",
                                std::string(what) == "node GET" ? "get-c" + std::to_string(c)
                                                                : "list-c" + std::to_string(c),
                                serve.pid());
      const bench::WrkRun r =
          bench::run_wrk(script, url, token, threads, c, duration, serve.pid(), db);
      perf.stop();
      print_run(what, threads, c, r);
      series[c].rps.push_back(r.requests_per_s);
      series[c].p50.push_back(r.p50_ms);
      series[c].p99.push_back(r.p99_ms);
    }
  }
  for (const auto& [c, s] : series) {
    auto range = [](const std::vector<double>& v) {
      return std::make_pair(*std::min_element(v.begin(), v.end()),
                            *std::max_element(v.begin(), v.end()));
    };
    const auto rps = range(s.rps), p50 = range(s.p50), p99 = range(s.p99);
    std::printf(
        "%-10s c%-4d over %zu runs: %.0f-%.0f req/s (median %.0f), p50 %.2f-%.2f ms, p99 "
        "%.2f-%.2f ms\n",
        what, c, s.rps.size(), rps.first, rps.second, bench::percentile(s.rps, 0.5), p50.first,
        p50.second, p99.first, p99.second);
  }
  std::fflush(stdout);
}

int run(int argc, char** argv) {
  const std::string ironhold = arg(argc, argv, "ironhold", "build-release/ironhold");
  const long nodes = std::stol(arg(argc, argv, "nodes", "100000"));
  const int duration = std::stoi(arg(argc, argv, "duration", "15"));
  const int repeat = std::stoi(arg(argc, argv, "repeat", "3"));
  const int warmup = std::stoi(arg(argc, argv, "warmup", "3"));
  const auto get_connections = int_list(arg(argc, argv, "get-connections", "1,8,32,128"));
  const auto list_connections = int_list(arg(argc, argv, "list-connections", "1,4,16"));
  const std::string perf_dir = arg(argc, argv, "perf", "");
  // Before each run, wait up to this long until other processes leave the cores alone.
  const auto quiet_wait = std::chrono::seconds(std::stol(arg(argc, argv, "wait-quiet", "600")));
  std::vector<std::string> serve_extra = {"--no-poller", "--no-tasks", "--no-event-subscriptions",
                                          "--log-level", "warn"};
  bench::pass_through(argc, argv, {"threads", "db-connections"}, serve_extra);
  // `--prepared no`: the statements unprepared, as behind PgBouncer (for comparison).
  if (arg(argc, argv, "prepared", "yes") == "no") serve_extra.push_back("--no-prepared-statements");

  bench::stop_on_signals();
  bench::raise_fd_limit();
  bench::TempDir dir;
  bench::BenchDatabase db(dir.path());
  bench::insert_nodes(db, nodes);

  const fs::path ids = dir.path() / "node-paths.txt", sites = dir.path() / "list-paths.txt";
  {
    std::ofstream out(ids);
    for (const auto& r : db.rows("SELECT id FROM nodes ORDER BY random()"))
      out << "/api/v1/nodes/" << r[0] << "\n";
    std::ofstream list(sites);
    for (const auto& site : bench::site_names(nodes))
      list << "/api/v1/nodes?site=" << site << "&limit=1000\n";
  }
  const auto get_script = bench::write_rotating_script(dir.path(), "node-get", ids);
  const auto list_script = bench::write_rotating_script(dir.path(), "node-list", sites);

  bench::ServeProcess serve({ironhold, db.url(), dir.path(), serve_extra});
  const std::string token = serve.create_token("admin", "bench");
  std::printf("ironhold serve (pid %d) at %s:", serve.pid(), serve.url().c_str());
  for (const auto& a : serve_extra) std::printf(" %s", a.c_str());
  std::printf("\n");

  // What one answer of each kind is.
  bench::Http http(token);
  const std::string one_id = db.query("SELECT id FROM nodes ORDER BY name LIMIT 1");
  const bench::Reply node = http.get(serve.url() + "/api/v1/nodes/" + one_id);
  const std::string first_site = bench::site_names(nodes).front();
  const bench::Reply list =
      http.get(serve.url() + "/api/v1/nodes?site=" + first_site + "&limit=1000");
  if (node.status != 200 || list.status != 200)
    throw std::runtime_error("the API answered " + std::to_string(node.status) + " / " +
                             std::to_string(list.status) + ": " + node.body.substr(0, 300) +
                             list.body.substr(0, 300));
  std::printf("node GET answers %zu bytes; the list of site %s answers %zu nodes in %zu bytes\n",
              node.body.size(), first_site.c_str(), list.doc()["items"].size(), list.body.size());
  std::printf("wrk, the service and PostgreSQL share %u cores\n",
              std::thread::hardware_concurrency());
  std::fflush(stdout);

  workload("node GET", get_script, serve.url(), token, get_connections, duration, repeat, warmup,
           serve, db, perf_dir, quiet_wait);
  workload("list 1000", list_script, serve.url(), token, list_connections, duration, repeat, warmup,
           serve, db, perf_dir, quiet_wait);
  const auto usage = bench::process_usage(serve.pid());
  std::printf("serve at the end: rss %ld MiB, hwm %ld MiB\n", usage.rss_kib / 1024,
              usage.hwm_kib / 1024);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return ironhold::bench::run_main("api_load", run, argc, argv);
}

#include "bench/wrk_runner.hpp"

#include <sys/resource.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "bench/bench_util.hpp"
#include "inventory/util/process.hpp"

namespace ironhold::bench {
namespace {

// "635.91us", "1.23ms", "2.01s", "1.5m" -> milliseconds
double duration_ms(const std::string& value, const std::string& unit) {
  const double v = std::stod(value);
  if (unit == "us") return v / 1000;
  if (unit == "ms") return v;
  if (unit == "s") return v * 1000;
  if (unit == "m") return v * 60000;
  return v;
}

double latency_at(const std::string& text, const std::string& percent) {
  const std::regex line("\\n\\s+" + percent + "%\\s+([0-9.]+)(us|ms|s|m)\\b");
  std::smatch m;
  return std::regex_search(text, m, line) ? duration_ms(m[1], m[2]) : -1;
}

}  // namespace

fs::path write_rotating_script(const fs::path& dir, const std::string& name,
                               const fs::path& paths_file) {
  const fs::path script = dir / (name + ".lua");
  std::ofstream out(script);
  out << "-- Written by the Ironhold benchmarks: GET each path of a file in turn.\n"
         "local paths = {}\n"
         "for line in io.lines(\""
      << paths_file.string()
      << "\") do paths[#paths + 1] = line end\n"
         "local started = 0\n"
         "function setup(thread)\n"
         "  thread:set(\"offset\", started * 7919)\n"
         "  started = started + 1\n"
         "end\n"
         "local n = nil\n"
         "function request()\n"
         "  if n == nil then n = offset or 0 end\n"
         "  n = n + 1\n"
         "  return wrk.format(\"GET\", paths[(n % #paths) + 1])\n"
         "end\n";
  return script;
}

WrkRun run_wrk(const fs::path& script, const std::string& url, const std::string& token,
               int threads, int connections, int seconds, pid_t serve, BenchDatabase& db) {
  throw_if_stopped();
  const std::vector<std::string> args = {"-t",
                                         std::to_string(threads),
                                         "-c",
                                         std::to_string(connections),
                                         "-d",
                                         std::to_string(seconds) + "s",
                                         "--timeout",
                                         "10s",
                                         "--latency",
                                         "-s",
                                         script.string(),
                                         "-H",
                                         "Authorization: Bearer " + token,
                                         url};
  WrkRun run;
  const double serve0 = process_usage(serve).cpu_seconds, db0 = db.server_cpu_seconds();
  const double wrk0 = cpu_seconds(RUSAGE_CHILDREN);
  const ForeignLoad foreign(db.postmaster());
  util::ProcessOptions options;
  options.timeout = std::chrono::seconds(seconds + 60);
  const auto result = util::run_process("/usr/bin/wrk", args, options);
  run.foreign_cores = foreign.cores();
  run.wrk_cpu = cpu_seconds(RUSAGE_CHILDREN) - wrk0;
  run.serve_cpu = process_usage(serve).cpu_seconds - serve0;
  run.db_cpu = db.server_cpu_seconds() - db0;
  run.output = result.out;
  if (!result.ok())
    throw std::runtime_error("wrk failed (" + result.status_text() + "): " + result.err +
                             result.out + " (apt-get install wrk)");
  std::smatch m;
  if (std::regex_search(run.output, m, std::regex("Requests/sec:\\s+([0-9.]+)")))
    run.requests_per_s = std::stod(m[1]);
  else
    throw std::runtime_error("wrk printed no Requests/sec:\n" + run.output);
  if (std::regex_search(run.output, m, std::regex("\\n\\s+([0-9]+) requests in")))
    run.requests = std::stol(m[1]);
  if (std::regex_search(run.output, m, std::regex("Non-2xx or 3xx responses: ([0-9]+)")))
    run.non_2xx = std::stol(m[1]);
  if (std::regex_search(run.output, m,
                        std::regex("Socket errors: connect ([0-9]+), read ([0-9]+), write "
                                   "([0-9]+), timeout ([0-9]+)")))
    run.socket_errors = std::stol(m[1]) + std::stol(m[2]) + std::stol(m[3]) + std::stol(m[4]);
  run.p50_ms = latency_at(run.output, "50");
  run.p90_ms = latency_at(run.output, "90");
  run.p99_ms = latency_at(run.output, "99");
  if (std::regex_search(
          run.output, m,
          std::regex("Latency\\s+[0-9.]+\\w+\\s+[0-9.]+\\w+\\s+([0-9.]+)(us|ms|s|m)")))
    run.max_ms = duration_ms(m[1], m[2]);
  return run;
}

}  // namespace ironhold::bench

// One power+health sweep (or sensor poll, or inspection: --poll) of many simulated Redfish BMCs
// through the real Redfish driver: the
// first sweep (TLS handshakes, certificate pinning, session logins) and steady sweeps (sessions
// and connections reused). Prints wall time, CPU per BMC poll on this side and peak RSS.
//   redfish_sweep --ironhold build/ironhold --mockup mockups/hgx-gpu-server --count 5000
//                 --per-process 1000 --latency-ms 50 --sweeps 3 [--threads 1]
//                 [--exit-holding-heap yes]  (under heaptrack: the steady heap by allocation site)
//                 [--http-client asio|libcurl]
//                 [--poll status|sensors|inventory]  (what each BMC is asked: poll_status, the
//                                  sensor poll, or a whole inspection; default status)
//                 [--pause-s 65]  (between sweeps: past the simulators' 60 s keep-alive, so that
//                                  every sweep reconnects, as a status interval of minutes does)
#include <sys/resource.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "bench/bench_util.hpp"
#include "bench/sim_processes.hpp"
#include "bmc/redfish/redfish_driver.hpp"
#include "inventory/poller/poller.hpp"

namespace asio = boost::asio;
using namespace ironhold;
using Clock = std::chrono::steady_clock;

using bench::arg;
using bench::cpu_seconds;
using bench::peak_rss_mib;
using bench::rss_mib;

namespace {

struct SweepResult {
  double wall = 0, cpu = 0;
  std::size_t ok = 0;
  std::map<std::string, std::size_t> errors;
};

// What the workers of one sweep share; safe with several threads.
enum class PollKind { status, sensors, inventory };

struct SweepState {
  std::vector<DriverTarget>& targets;
  PollKind kind = PollKind::status;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> ok{0};
  std::mutex errors_mutex;
  std::map<std::string, std::size_t> errors;
};

// Polls targets one after another until none is left: `in_flight` of these run at once, as the
// poller bounds the polls it has in flight.
asio::awaitable<void> worker(bmc::redfish::RedfishDriver& driver, SweepState& state) {
  for (;;) {
    const std::size_t index = state.next++;
    if (index >= state.targets.size()) co_return;
    DriverTarget& target = state.targets[index];
    DriverOutcome report;
    if (state.kind == PollKind::sensors) {
      report = co_await driver.poll_sensors(target);
    } else if (state.kind == PollKind::inventory) {
      report = co_await driver.inspect(target);
    } else {
      report = co_await driver.poll_status(target);
    }
    if (report.ok()) {
      ++state.ok;
      if (!target.pinned_fingerprint && report.tls_fingerprint)
        target.pinned_fingerprint = report.tls_fingerprint;
    } else {
      std::lock_guard lock(state.errors_mutex);
      ++state.errors[std::string(to_string(report.error->code))];
    }
  }
}

SweepResult sweep(asio::io_context& io, bmc::redfish::RedfishDriver& driver,
                  std::vector<DriverTarget>& targets, unsigned threads, std::size_t in_flight,
                  PollKind kind) {
  SweepState state{targets, kind};
  const double cpu0 = cpu_seconds();
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < std::min(in_flight, targets.size()); ++i)
    asio::co_spawn(io, worker(driver, state), asio::detached);
  // The driver keeps no work of its own between polls, so run() returns once every worker is done.
  std::vector<std::thread> extra;
  for (unsigned i = 1; i < threads; ++i) extra.emplace_back([&io] { io.run(); });
  io.run();
  for (auto& t : extra) t.join();
  io.restart();
  SweepResult result;
  result.wall = std::chrono::duration<double>(Clock::now() - t0).count();
  result.cpu = cpu_seconds() - cpu0;
  result.ok = state.ok;
  result.errors = std::move(state.errors);
  return result;
}

void print(const char* name, const SweepResult& r, std::size_t n) {
  std::printf("%-14s wall %7.2f s  cpu %7.2f s  %.3f ms cpu/poll  ok %zu", name, r.wall, r.cpu,
              1000.0 * r.cpu / static_cast<double>(n), r.ok);
  for (const auto& [code, count] : r.errors) std::printf("  %s %zu", code.c_str(), count);
  std::printf("  rss %ld MiB, peak %ld MiB\n", rss_mib(), peak_rss_mib());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string ironhold = arg(argc, argv, "ironhold", "build/ironhold");
  const std::string mockup = arg(argc, argv, "mockup", "mockups/hgx-gpu-server");
  const unsigned count = static_cast<unsigned>(std::stoul(arg(argc, argv, "count", "5000")));
  const unsigned per_process =
      static_cast<unsigned>(std::stoul(arg(argc, argv, "per-process", "1000")));
  const unsigned latency = static_cast<unsigned>(std::stoul(arg(argc, argv, "latency-ms", "50")));
  const unsigned sweeps = static_cast<unsigned>(std::stoul(arg(argc, argv, "sweeps", "3")));
  const unsigned threads = static_cast<unsigned>(std::stoul(arg(argc, argv, "threads", "1")));
  // Polls in flight at once; the default is the poller's (PollerOptions::max_in_flight).
  const std::size_t in_flight =
      std::stoul(arg(argc, argv, "in-flight", std::to_string(PollerOptions{}.max_in_flight)));
  // Kept-alive connections libcurl may hold (CURLMOPT_MAXCONNECTS); -1: the driver's default,
  // 0: libcurl's own (4 per transfer in flight, which closes most BMC connections between sweeps).
  const long max_idle = std::stol(arg(argc, argv, "max-idle", "-1"));
  // "yes": end without freeing anything (the simulators stopped first), so that a heap profiler
  // (heaptrack) reports the steady heap after the last sweep, by allocation site, as its "leaks".
  const bool exit_holding_heap = arg(argc, argv, "exit-holding-heap", "no") == "yes";
  // The Redfish driver's HTTP client (serve's --bmc-http-client).
  const std::string http_client = arg(argc, argv, "http-client", "asio");
  const unsigned pause_s = static_cast<unsigned>(std::stoul(arg(argc, argv, "pause-s", "0")));
  const std::string poll = arg(argc, argv, "poll", "status");
  PollKind kind = PollKind::status;
  if (poll == "sensors")
    kind = PollKind::sensors;
  else if (poll == "inventory")
    kind = PollKind::inventory;
  else if (poll != "status")
    throw std::runtime_error("--poll must be status, sensors or inventory");

  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);

  std::printf("starting %u simulated BMCs in %u processes...\n", count,
              (count + per_process - 1) / per_process);
  std::fflush(stdout);
  auto sims_owner = std::make_unique<bench::SimProcesses>(
      ironhold, std::vector<std::string>{"redfish", "--mockup", mockup}, count, per_process, 19100);
  const bench::SimProcesses& sims = *sims_owner;
  if (latency) sims.set_faults("{\"latency_ms\": " + std::to_string(latency) + "}");

  std::vector<DriverTarget> targets;
  for (std::size_t i = 0; i < sims.bmcs().size(); ++i) {
    const auto& bmc = sims.bmcs()[i];
    DriverTarget t;
    t.node_id = "node-" + std::to_string(i);
    t.node_name = t.node_id;
    std::string why;
    t.endpoint = *parse_endpoint(bmc.endpoint, why);
    t.credentials = Credentials{bmc.username, bmc.password};
    targets.push_back(std::move(t));
  }
  const long rss_before = peak_rss_mib();
  asio::io_context io;
  bmc::redfish::RedfishDriverOptions driver_options;
  if (max_idle >= 0) driver_options.http.transport.max_idle_connections = max_idle;
  if (http_client == "libcurl")
    driver_options.http.transport_kind = bmc::http::BmcHttpClient::Options::Transport::libcurl;
  else if (http_client != "asio")
    throw std::runtime_error("--http-client must be asio or libcurl");
  bmc::redfish::RedfishDriver driver(io.get_executor(), driver_options);
  std::printf(
      "%zu BMCs, %s polls, %u ms added latency each, %u thread(s), %zu polls in flight; rss "
      "before the driver: %ld MiB\n",
      targets.size(), poll.c_str(), latency, threads, in_flight, rss_before);
  print("first sweep", sweep(io, driver, targets, threads, in_flight, kind), targets.size());
  for (unsigned s = 0; s < sweeps; ++s) {
    if (pause_s) {
      std::printf("  pausing %u s; rss now %ld MiB\n", pause_s, rss_mib());
      std::fflush(stdout);
      std::this_thread::sleep_for(std::chrono::seconds(pause_s));
    }
    print(pause_s ? "reconnecting" : "steady sweep",
          sweep(io, driver, targets, threads, in_flight, kind), targets.size());
  }
  // What one BMC served over all the sweeps, as its simulator counted it.
  const auto counted = nlohmann::json::parse(sims.counters(0), nullptr, false);
  if (counted.is_object() && counted.contains("requests"))
    std::printf("BMC 0 served %s requests in %u sweeps (%.1f per poll)\n",
                counted["requests"].dump().c_str(), sweeps + 1,
                counted["requests"].get<double>() / (sweeps + 1));
  if (exit_holding_heap) {
    sims_owner.reset();
    std::fflush(stdout);
    std::_Exit(0);
  }
  return 0;
}

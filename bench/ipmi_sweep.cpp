// Power-status sweeps of many simulated IPMI BMCs through the real IPMI driver: the first sweep
// opens every session (Get Channel Authentication Capabilities and Cipher Suites, Open Session,
// RAKP 1-4, Set Session Privilege Level), the steady sweeps reuse them (one Get Chassis Status
// each). Prints wall time, CPU per BMC poll on this side (the simulators run in other processes)
// and peak RSS; then the CPU that `ipmitool -I lanplus ... chassis power status` costs per call
// on a sample of the same BMCs.
//   ipmi_sweep --ironhold build/ironhold --count 2000 --per-process 1000 --sweeps 5
//              [--suite 3|17] [--in-flight 1000] [--ipmitool-sample 20]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <cstdio>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "bench/bench_util.hpp"
#include "bench/sim_processes.hpp"
#include "bmc/ipmi/ipmi_driver.hpp"

namespace asio = boost::asio;
using namespace ironhold;
using Clock = std::chrono::steady_clock;

using bench::arg;
using bench::cpu_seconds;
using bench::peak_rss_mib;

namespace {

struct SweepState {
  std::vector<DriverTarget>& targets;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> ok{0};
  std::mutex errors_mutex;
  std::map<std::string, std::size_t> errors;
};

asio::awaitable<void> worker(bmc::ipmi::IpmiDriver& driver, SweepState& state) {
  for (;;) {
    const std::size_t index = state.next++;
    if (index >= state.targets.size()) co_return;
    const StatusReport report = co_await driver.poll_status(state.targets[index]);
    if (report.ok()) {
      ++state.ok;
    } else {
      std::lock_guard lock(state.errors_mutex);
      ++state.errors[std::string(to_string(report.error->code))];
    }
  }
}

struct SweepResult {
  double wall = 0, cpu = 0;
  std::size_t ok = 0;
  std::map<std::string, std::size_t> errors;
};

// The io_context runs on its own threads for the whole benchmark (the driver keeps a
// keep-alive timer), so a sweep waits for its workers' futures instead of for run() to return.
SweepResult sweep(asio::io_context& io, bmc::ipmi::IpmiDriver& driver,
                  std::vector<DriverTarget>& targets, std::size_t in_flight) {
  SweepState state{targets};
  const double cpu0 = cpu_seconds();
  const auto t0 = Clock::now();
  std::vector<std::future<void>> done;
  for (std::size_t i = 0; i < std::min(in_flight, targets.size()); ++i)
    done.push_back(asio::co_spawn(io, worker(driver, state), asio::use_future));
  for (auto& f : done) f.get();
  SweepResult r;
  r.wall = std::chrono::duration<double>(Clock::now() - t0).count();
  r.cpu = cpu_seconds() - cpu0;
  r.ok = state.ok;
  r.errors = std::move(state.errors);
  return r;
}

void print(const char* name, const SweepResult& r, std::size_t n) {
  std::printf("%-14s wall %7.3f s  cpu %7.3f s  %8.1f us cpu/poll  ok %zu", name, r.wall, r.cpu,
              1e6 * r.cpu / static_cast<double>(n), r.ok);
  for (const auto& [code, count] : r.errors) std::printf("  %s %zu", code.c_str(), count);
  std::printf("  peak rss %ld MiB\n", peak_rss_mib());
  std::fflush(stdout);
}

// CPU (user + system) of `ipmitool ... chassis power status` per call, and its wall time.
void sample_ipmitool(const std::vector<bench::SimulatedBmc>& bmcs, unsigned sample,
                     const std::string& suite) {
  if (sample == 0 || access("/usr/bin/ipmitool", X_OK) != 0) return;
  const std::size_t step = std::max<std::size_t>(1, bmcs.size() / sample);
  unsigned runs = 0, failures = 0;
  const double cpu0 = cpu_seconds(RUSAGE_CHILDREN);
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < bmcs.size() && runs < sample; i += step, ++runs) {
    const auto& bmc = bmcs[i];
    // "ipmi://127.0.0.1:20001" -> host, port
    const std::string hostport = bmc.endpoint.substr(7);
    const std::string host = hostport.substr(0, hostport.rfind(':'));
    const std::string port = hostport.substr(hostport.rfind(':') + 1);
    std::fflush(stdout);  // or the child's copy of the buffer is printed twice
    const pid_t pid = fork();
    if (pid == 0) {
      freopen("/dev/null", "w", stdout);
      execl("/usr/bin/ipmitool", "ipmitool", "-I", "lanplus", "-H", host.c_str(), "-p",
            port.c_str(), "-U", bmc.username.c_str(), "-P", bmc.password.c_str(), "-C",
            suite.c_str(), "chassis", "power", "status", static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
  }
  const double cpu = cpu_seconds(RUSAGE_CHILDREN) - cpu0;
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf(
      "ipmitool -I lanplus -C %s chassis power status: %u runs, %u failed, %.1f ms cpu and "
      "%.1f ms wall per run\n",
      suite.c_str(), runs, failures, 1e3 * cpu / runs, 1e3 * wall / runs);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string ironhold = arg(argc, argv, "ironhold", "build/ironhold");
  const unsigned count = static_cast<unsigned>(std::stoul(arg(argc, argv, "count", "2000")));
  const unsigned per_process =
      static_cast<unsigned>(std::stoul(arg(argc, argv, "per-process", "1000")));
  const unsigned sweeps = static_cast<unsigned>(std::stoul(arg(argc, argv, "sweeps", "5")));
  const unsigned threads = static_cast<unsigned>(std::stoul(arg(argc, argv, "threads", "1")));
  const std::size_t in_flight = std::stoul(arg(argc, argv, "in-flight", "1000"));
  const std::string suite = arg(argc, argv, "suite", "3");
  const unsigned sample =
      static_cast<unsigned>(std::stoul(arg(argc, argv, "ipmitool-sample", "20")));

  std::printf("starting %u simulated IPMI BMCs in %u processes...\n", count,
              (count + per_process - 1) / per_process);
  std::fflush(stdout);
  bench::SimProcesses sims(ironhold, {"ipmi"}, count, per_process, 19300);

  std::vector<DriverTarget> targets;
  for (std::size_t i = 0; i < sims.bmcs().size(); ++i) {
    const auto& bmc = sims.bmcs()[i];
    DriverTarget t;
    t.node_id = "node-" + std::to_string(i);
    t.node_name = t.node_id;
    std::string why;
    t.endpoint = *parse_endpoint(bmc.endpoint, why);
    t.credentials = Credentials{bmc.username, bmc.password};
    t.options = {{"cipher_suites", {std::stoi(suite)}}};
    targets.push_back(std::move(t));
  }
  const long rss_before = peak_rss_mib();
  asio::io_context io;
  auto guard = asio::make_work_guard(io);
  std::vector<std::thread> runners;
  for (unsigned i = 0; i < threads; ++i) runners.emplace_back([&io] { io.run(); });
  {
    bmc::ipmi::IpmiDriver driver(io.get_executor());
    std::printf(
        "%zu BMCs, cipher suite %s, %u thread(s), %zu polls in flight; rss before the "
        "driver: %ld MiB\n",
        targets.size(), suite.c_str(), threads, in_flight, rss_before);
    print("session set-up", sweep(io, driver, targets, in_flight), targets.size());
    for (unsigned s = 0; s < sweeps; ++s)
      print("steady sweep", sweep(io, driver, targets, in_flight), targets.size());
    const auto stats = driver.client().stats();
    std::printf("sessions opened %llu, open %zu, retransmissions %llu, dropped %llu\n",
                static_cast<unsigned long long>(stats.sessions_opened), stats.open_sessions,
                static_cast<unsigned long long>(stats.retransmissions),
                static_cast<unsigned long long>(stats.dropped));
    const auto t0 = Clock::now();
    asio::co_spawn(io, driver.shutdown(), asio::use_future).get();
    std::printf("closed every session in %.3f s\n",
                std::chrono::duration<double>(Clock::now() - t0).count());
  }
  sample_ipmitool(sims.bmcs(), sample, suite);
  guard.reset();
  io.stop();
  for (auto& t : runners) t.join();
  return 0;
}

// A bulk power cycle of many simulated Redfish BMCs through the whole service: `ironhold serve`
// (its own embedded PostgreSQL, no poller) and the simulators in child processes; one POST
// /api/v1/actions, then the tasks followed until every one has ended. Prints the wall time from
// the request to the last task's end, task durations, the outcome counts, and how many resets
// each BMC received (read from the simulators' control API: exactly one each).
//   bulk_power_cycle --ironhold build/ironhold --mockup mockups/compute-server --count 200
//                    [--max-parallel 64] [--reset-delay-ms 1000]
#include <curl/curl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench/bench_util.hpp"
#include "bench/sim_processes.hpp"
#include "inventory/util/process.hpp"
#include "inventory/util/time.hpp"

using namespace ironhold;
using bench::arg;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

struct Reply {
  long status = 0;
  std::string body;
  json doc() const { return json::parse(body, nullptr, false); }
};

std::size_t collect(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

Reply call(const std::string& method, const std::string& url, const std::string& token,
           const std::string& body = {}) {
  CURL* curl = curl_easy_init();
  Reply reply;
  curl_slist* headers = nullptr;
  const std::string auth = "Authorization: Bearer " + token;
  if (!token.empty()) headers = curl_slist_append(headers, auth.c_str());
  headers = curl_slist_append(headers, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (!body.empty()) curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  if (curl_easy_perform(curl) == CURLE_OK)
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return reply;
}

double seconds_between(const std::string& from, const std::string& to) {
  const auto a = parse_rfc3339(from), b = parse_rfc3339(to);
  if (!a || !b) return 0;
  return std::chrono::duration<double>(*b - *a).count();
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(p * static_cast<double>(values.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string ironhold = arg(argc, argv, "ironhold", "build/ironhold");
  const std::string mockup = arg(argc, argv, "mockup", "mockups/compute-server");
  const unsigned count = static_cast<unsigned>(std::stoul(arg(argc, argv, "count", "200")));
  const int max_parallel = std::stoi(arg(argc, argv, "max-parallel", "64"));
  const std::string reset_delay = arg(argc, argv, "reset-delay-ms", "1000");
  const std::string port = arg(argc, argv, "port", "18480");
  curl_global_init(CURL_GLOBAL_DEFAULT);

  char dir_template[] = "/tmp/ih-bench-XXXXXX";
  if (!::mkdtemp(dir_template)) return 1;
  const fs::path data = fs::path(dir_template) / "data";
  bench::SimProcesses sims(ironhold,
                           {"redfish", "--mockup", mockup, "--reset-delay-ms", reset_delay}, count,
                           count, 18500);
  const pid_t serve = fork();
  if (serve == 0) {
    const std::string log = (fs::path(dir_template) / "serve.log").string();
    freopen(log.c_str(), "w", stdout);
    freopen(log.c_str(), "a", stderr);
    execl(ironhold.c_str(), ironhold.c_str(), "serve", "--data-dir", data.c_str(), "--listen",
          ("127.0.0.1:" + port).c_str(), "--no-poller", "--log-level", "warn", nullptr);
    _exit(127);
  }
  const std::string base = "http://127.0.0.1:" + port;
  for (int i = 0; i < 600 && call("GET", base + "/healthz", "").status != 200; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto created = util::run_process(ironhold, {"token", "create", "--data-dir", data.string(),
                                                    "--role", "admin", "--name", "bench"});
  const std::string token = created.out.substr(0, created.out.find_first_of(" \n"));

  for (unsigned i = 0; i < count; ++i) {
    const auto& bmc = sims.bmcs()[i];
    const json node = {{"name", "bench-" + std::to_string(i)},
                       {"driver", "redfish"},
                       {"endpoint", bmc.endpoint},
                       {"tags", {{"bench", "cycle"}}},
                       {"credentials", {{"username", bmc.username}, {"password", bmc.password}}}};
    const Reply r = call("POST", base + "/api/v1/nodes", token, node.dump());
    if (r.status != 201) {
      std::cerr << "enrolling failed: " << r.status << " " << r.body << "\n";
      return 1;
    }
  }

  const json bulk = {{"selector", {{"tag", "bench:cycle"}}},
                     {"action", "power"},
                     {"parameters", {{"action", "cycle"}}},
                     {"max_parallel", max_parallel}};
  const auto t0 = Clock::now();
  const Reply started = call("POST", base + "/api/v1/actions", token, bulk.dump());
  const std::string bulk_id = started.doc().value("bulk_id", "");
  json tasks;
  for (;;) {
    tasks = call("GET", base + "/api/v1/tasks?limit=1000&bulk_id=" + bulk_id, token).doc()["items"];
    const bool all_ended = std::all_of(tasks.begin(), tasks.end(),
                                       [](const json& t) { return t["finished_at"].is_string(); });
    if (all_ended && tasks.size() == count) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();

  std::map<std::string, int> states;
  std::vector<double> durations;
  for (const auto& t : tasks) {
    ++states[t["state"].get<std::string>()];
    durations.push_back(seconds_between(t["started_at"], t["finished_at"]));
  }
  std::map<unsigned, int> resets_per_bmc;  // resets received -> BMCs
  for (const auto& bmc : sims.bmcs()) {
    const json d = call("GET", bmc.control + "/bmcs/" + std::to_string(bmc.index), "").doc();
    unsigned n = 0;
    for (const auto& [type, c] : d["counters"]["resets"].items()) n += c.get<unsigned>();
    ++resets_per_bmc[n];
  }

  std::printf("bulk power cycle of %u BMCs, max_parallel %d, reset phases %s ms\n", count,
              max_parallel, reset_delay.c_str());
  std::printf("  wall time, request to last task ended: %.1f s\n", wall);
  std::printf("  task duration p50 %.2f s, p95 %.2f s, max %.2f s\n", percentile(durations, 0.5),
              percentile(durations, 0.95), percentile(durations, 1.0));
  for (const auto& [state, n] : states) std::printf("  %s: %d\n", state.c_str(), n);
  for (const auto& [n, bmcs] : resets_per_bmc)
    std::printf("  BMCs that received %u reset(s): %d\n", n, bmcs);

  kill(serve, SIGTERM);
  waitpid(serve, nullptr, 0);
  fs::remove_all(dir_template);
  return 0;
}

// Pushed Redfish event latency: `ironhold serve` subscribes itself on simulated Redfish BMCs'
// EventService (docs/events.md); then, one at a time, a SEL entry is appended on a BMC through the
// simulator's control API (POST /bmcs/{i}/sel, which makes the BMC post an Alert to its
// subscribers) and the benchmark polls GET /api/v1/nodes/{id}/events?kind=sel until the entry is
// there. The latency is from just before the control request to the first answer that lists the
// entry. Status and sensor/log polls are an hour apart, so only the push can deliver; every entry
// found is checked for details.pushed. Prints p50/p95/p99/max over --events events.
//   event_latency --ironhold build-release/ironhold --mockup mockups/hgx-gpu-server --bmcs 20
//                 --events 200 [--poll-us 1000] [--gap-ms 50] [--severity OK]
#include <cstdio>
#include <map>
#include <random>
#include <thread>

#include "bench/bench_service.hpp"
#include "bench/bench_util.hpp"
#include "bench/sim_processes.hpp"

using namespace ironhold;
using bench::arg;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

std::vector<std::string> enroll(const bench::SimProcesses& sims, const std::string& url,
                                const std::string& token) {
  bench::Http http(token);
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < sims.bmcs().size(); ++i) {
    const auto& bmc = sims.bmcs()[i];
    const json body = {{"name", "ev-" + std::to_string(1000 + i).substr(1)},
                       {"driver", "redfish"},
                       {"endpoint", bmc.endpoint},
                       {"credentials", {{"username", bmc.username}, {"password", bmc.password}}},
                       {"location", {{"site", "lab1"}, {"rack", "r01"}}}};
    const bench::Reply r = http.call("POST", url + "/api/v1/nodes", body.dump());
    if (r.status != 201)
      throw std::runtime_error("enrolling failed: HTTP " + std::to_string(r.status) + " " + r.body);
    ids.push_back(r.doc()["id"].get<std::string>());
  }
  return ids;
}

// Every node's subscription active and its first polls (which read the log as history) done.
void wait_ready(bench::BenchDatabase& db, const std::vector<std::string>& ids,
                const std::string& url, const std::string& token, std::chrono::seconds timeout) {
  bench::Http http(token);
  const auto t0 = Clock::now();
  std::map<std::string, std::string> states;
  for (;;) {
    std::size_t active = 0;
    for (const auto& id : ids) {
      const bench::Reply r = http.get(url + "/api/v1/nodes/" + id + "/event-subscription");
      const json doc = r.doc();
      states[id] = r.status == 200 && doc.is_object() ? doc.value("state", "?")
                                                      : "HTTP " + std::to_string(r.status);
      if (states[id] == "active") ++active;
    }
    const std::string unpolled = db.query(
        "SELECT count(*) FROM poll_schedule WHERE last_finished IS NULL "
        "OR lease_owner IS NOT NULL");
    if (active == ids.size() && unpolled == "0") break;
    if (bench::seconds_since(t0) > static_cast<double>(timeout.count())) {
      std::string why;
      for (const auto& [id, state] : states)
        if (state != "active") why += " " + id + ":" + state;
      throw std::runtime_error("not ready within the timeout: " + std::to_string(active) + " of " +
                               std::to_string(ids.size()) + " subscriptions active (" + why +
                               "), " + unpolled + " first polls not done");
    }
    bench::pause_for(500ms);
  }
  std::printf("%zu subscriptions active and first polls done after %.1f s\n", ids.size(),
              bench::seconds_since(t0));
}

int run(int argc, char** argv) {
  const std::string ironhold = arg(argc, argv, "ironhold", "build-release/ironhold");
  const std::string mockup = arg(argc, argv, "mockup", "mockups/hgx-gpu-server");
  const unsigned bmcs = static_cast<unsigned>(std::stoul(arg(argc, argv, "bmcs", "20")));
  const int events = std::stoi(arg(argc, argv, "events", "200"));
  const auto poll_every = std::chrono::microseconds(std::stol(arg(argc, argv, "poll-us", "1000")));
  const auto gap = std::chrono::milliseconds(std::stol(arg(argc, argv, "gap-ms", "50")));
  const std::string severity = arg(argc, argv, "severity", "OK");
  const auto give_up = std::chrono::seconds(std::stol(arg(argc, argv, "event-timeout", "10")));
  // Before the events, wait up to this long until other processes leave the cores alone.
  const auto quiet_wait = std::chrono::seconds(std::stol(arg(argc, argv, "wait-quiet", "600")));

  bench::stop_on_signals();
  bench::raise_fd_limit();
  bench::TempDir dir;
  bench::BenchDatabase db(dir.path());
  bench::SimProcesses sims(ironhold, {"redfish", "--mockup", mockup}, bmcs, bmcs, 19700);
  bench::ServeProcess serve({ironhold,
                             db.url(),
                             dir.path(),
                             {"--poll-status-interval", "3600", "--poll-sensors-interval", "3600",
                              "--poll-inventory-interval", "86400", "--log-level", "warn"}});
  const std::string token = serve.create_token("admin", "bench");
  std::printf("ironhold serve (pid %d) at %s, %u simulated Redfish BMCs\n", serve.pid(),
              serve.url().c_str(), bmcs);
  std::fflush(stdout);
  const std::vector<std::string> ids = enroll(sims, serve.url(), token);
  wait_ready(db, ids, serve.url(), token, std::chrono::seconds(300));

  if (quiet_wait.count() > 0) bench::wait_for_quiet(db.postmaster(), quiet_wait);
  const bench::ForeignLoad foreign(db.postmaster());
  bench::Http api(token), control;
  std::mt19937_64 random(std::random_device{}());
  std::vector<double> latencies;
  std::size_t pushed = 0, not_pushed = 0, missed = 0, polls = 0;
  for (int k = 0; k < events; ++k) {
    bench::throw_if_stopped();
    const std::size_t b = static_cast<std::size_t>(k) % ids.size();
    const auto& bmc = sims.bmcs()[b];
    const std::string message =
        "bench event " + std::to_string(k) + " " + std::to_string(random() % 1000000000);
    const std::string events_url =
        serve.url() + "/api/v1/nodes/" + ids[b] + "/events?kind=sel&limit=20";
    const auto t0 = Clock::now();
    const bench::Reply added =
        control.call("POST", bmc.control + "/bmcs/" + std::to_string(bmc.index) + "/sel",
                     json{{"severity", severity}, {"message", message}}.dump());
    if (added.status != 201)
      throw std::runtime_error("appending a SEL entry failed: HTTP " +
                               std::to_string(added.status) + " " + added.body);
    bool found = false;
    while (!found && Clock::now() - t0 < give_up) {
      const bench::Reply r = api.get(events_url);
      ++polls;
      const json doc = r.doc();
      if (r.status == 200 && doc.contains("items"))
        for (const auto& item : doc["items"]) {
          if (item.value("message", "") != message) continue;
          found = true;
          latencies.push_back(1000 * bench::seconds_since(t0));
          if (item["details"].value("pushed", false))
            ++pushed;
          else
            ++not_pushed;
          break;
        }
      if (!found) std::this_thread::sleep_for(poll_every);
    }
    if (!found) ++missed;
    bench::pause_for(gap);
  }
  std::printf(
      "%d SEL entries (severity %s) on %zu BMCs, the API polled every %ld us (%zu GETs): found "
      "%zu (pushed %zu, by a poll %zu), missed %zu within %ld s\n",
      events, severity.c_str(), ids.size(), static_cast<long>(poll_every.count()), polls,
      latencies.size(), pushed, not_pushed, missed, static_cast<long>(give_up.count()));
  if (!latencies.empty())
    std::printf(
        "latency, control request to visible in the API: min %.2f ms, p50 %.2f ms, p95 "
        "%.2f ms, p99 %.2f ms, max %.2f ms  (other processes %.2f cores; %s%s)\n",
        bench::percentile(latencies, 0), bench::percentile(latencies, 0.5),
        bench::percentile(latencies, 0.95), bench::percentile(latencies, 0.99),
        bench::percentile(latencies, 1), foreign.cores(), bench::load_average().c_str(),
        bench::compiler_running() ? ", a compiler was running" : "");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return ironhold::bench::run_main("event_latency", run, argc, argv);
}

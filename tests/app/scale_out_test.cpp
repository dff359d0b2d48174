// Three `ironhold serve` processes on one database polling one simulated fleet, with a bulk power
// cycle under way, and a kill -9 of one of them. Checked from the outside, as an operator would:
// - every node is polled again after the kill (the dead instance's leases run out and move on);
// - no poll is claimed again while its claim is still running: the schedule is watched every
//   100 ms from a connection of the test's own, and four BMCs answer slower than the lease, so a
//   lease that was not renewed while its poll ran would be taken over in plain sight; the BMCs'
//   own counts of status reads bound the polls per interval too;
// - no task is lost: every task ends succeeded and every BMC was reset exactly once;
// - a stream client of one instance sees a change made through another's API and every task's
//   end, whichever instance (the dead one included) carried it out;
// - each instance's connections in pg_stat_activity stay within the documented bound
//   (--db-connections + --export-connections + 1 listen, docs/scaling.md) while it is busy.
#include <signal.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <map>
#include <mutex>
#include <pqxx/pqxx>
#include <set>
#include <sstream>
#include <thread>

#include "sim/redfish/fleet.hpp"
#include "tests/app/shared_database_serve.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/sse_client.hpp"
#include "tests/support/test_cluster.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace scale_out_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr int kTaskBmcs = 12;   // power-cycled by the bulk action
constexpr int kFleetBmcs = 22;  // only polled: their status reads are counted
constexpr int kSlowBmcs = 4;    // answer after longer than the lease
constexpr int kBmcs = kTaskBmcs + kFleetBmcs + kSlowBmcs;
constexpr int kStatusInterval = 2;  // s
constexpr int kLease = 5;           // s, polls and tasks
constexpr unsigned kSlowLatencyMs = 7000;
// docs/scaling.md: --db-connections (4) + --export-connections (2) + the change feed's LISTEN.
constexpr int kConnectionBound = 4 + 2 + 1;

struct StatusRow {
  std::string owner;  // empty: not leased
  double started = 0, finished = 0;
};

// The poll schedule and the instances' connections, watched from beside the service.
class ScaleOutWatch {
 public:
  ScaleOutWatch(std::string url, std::vector<std::string> instances)
      : url_(std::move(url)),
        instances_(std::move(instances)),
        max_connections_(instances_.size()) {
    thread_ = std::thread([this] { run(); });
  }
  ~ScaleOutWatch() { stop(); }

  void stop() {
    stopping_ = true;
    if (thread_.joinable()) thread_.join();
  }
  // From now on a lease of this owner may be taken over: it was killed.
  void dead(const std::string& owner) {
    std::lock_guard lock(mutex_);
    dead_ = owner;
  }
  std::vector<std::string> violations() const {
    std::lock_guard lock(mutex_);
    return violations_;
  }
  std::vector<int> max_connections() const {
    std::lock_guard lock(mutex_);
    return max_connections_;
  }
  int samples() const { return samples_; }

 private:
  void run() {
    try {
      pqxx::connection c(url_);
      for (int round = 0; !stopping_; ++round) {
        sample_schedule(c);
        if (round % 3 == 0) sample_connections(c);
        ++samples_;
        std::this_thread::sleep_for(100ms);
      }
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      violations_.push_back(std::string("the watch failed: ") + e.what());
    }
  }

  // A claim (last_started moves) while the previous claim was held and not recorded (last_finished
  // older than it) is a second poll of the node while the first may still run, unless the
  // previous owner is dead.
  void sample_schedule(pqxx::connection& c) {
    pqxx::work tx(c);
    const auto rows = tx.exec(
        "SELECT node_id::text, coalesce(lease_owner, ''), "
        "       coalesce(extract(epoch FROM last_started), 0)::float8, "
        "       coalesce(extract(epoch FROM last_finished), 0)::float8 "
        "  FROM poll_schedule WHERE kind = 'status'");
    tx.commit();
    std::lock_guard lock(mutex_);
    for (const auto& r : rows) {
      StatusRow now{r[1].as<std::string>(), r[2].as<double>(), r[3].as<double>()};
      auto [it, fresh] = previous_.try_emplace(r[0].as<std::string>(), now);
      const StatusRow before = it->second;
      it->second = now;
      if (fresh || now.started == before.started || before.owner.empty()) continue;
      if (before.owner == dead_) continue;
      if (now.finished < before.started)
        violations_.push_back("node " + it->first + ": claimed by " + now.owner + " at " +
                              std::to_string(now.started) + " while " + before.owner +
                              "'s claim of " + std::to_string(before.started) +
                              " was not recorded");
    }
  }

  void sample_connections(pqxx::connection& c) {
    pqxx::work tx(c);
    const auto rows = tx.exec(
        "SELECT coalesce(application_name, ''), count(*)::int FROM pg_stat_activity "
        " WHERE datname = current_database() GROUP BY 1");
    tx.commit();
    std::vector<int> counts(instances_.size(), 0);
    for (const auto& r : rows) {
      const std::string name = r[0].as<std::string>();
      for (std::size_t i = 0; i < instances_.size(); ++i)
        if (name.starts_with(instances_[i] + " ")) counts[i] += r[1].as<int>();
    }
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < counts.size(); ++i)
      max_connections_[i] = std::max(max_connections_[i], counts[i]);
  }

  const std::string url_;
  const std::vector<std::string> instances_;
  mutable std::mutex mutex_;
  std::map<std::string, StatusRow> previous_;
  std::string dead_;
  std::vector<std::string> violations_;
  std::vector<int> max_connections_;
  std::atomic<int> samples_{0};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

std::string scalar(const TestDatabase& db, const std::string& sql) {
  return db.execute(sql);
}

// A figure of an instance's GET /metrics ("ironhold_polls_claimed_total"), -1 when missing.
double metric(unsigned short port, const std::string& token, const std::string& name) {
  const auto res = http_get(port, "/metrics", token);
  if (res.status != 200) return -1;
  const auto at = res.body.find("\n" + name + " ");
  if (at == std::string::npos) return -1;
  return std::atof(res.body.c_str() + at + name.size() + 2);
}

unsigned resets_of(sim::RedfishFleet& fleet, std::size_t i) {
  unsigned n = 0;
  for (const auto& [type, count] : fleet.state(i).counters().resets) n += count;
  return n;
}

}  // namespace

TEST_CASE("three instances on one database: a kill -9 moves polls and tasks on, none twice",
          "[app][scale-out][crash]") {
  TempDir dir("ih-scale-out");
  TestDatabase database;
  const SharedKeys keys(dir.path());
  const std::string url = database.owner_url();

  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("compute-server");
  o.count = kBmcs;
  o.reset_delay = 3000ms;  // a power cycle takes several seconds: the kill lands mid-way
  sim::RedfishFleet fleet(o);
  fleet.start();

  const std::vector<std::string> options = {"--poll-lease",
                                            std::to_string(kLease),
                                            "--task-lease",
                                            std::to_string(kLease),
                                            "--poll-status-interval",
                                            std::to_string(kStatusInterval),
                                            "--poll-sensors-interval",
                                            "3600",
                                            "--poll-inventory-interval",
                                            "86400",
                                            "--shutdown-grace",
                                            "1000"};
  std::vector<ServeInstance> instances;
  for (int i = 0; i < 3; ++i)
    instances.push_back(start_shared_serve(url, keys, dir.path() / ("data" + std::to_string(i)),
                                           options,
                                           dir.path() / ("serve" + std::to_string(i) + ".log")));
  REQUIRE(std::set<std::string>{instances[0].name, instances[1].name, instances[2].name}.size() ==
          3);
  const std::string token = shared_admin_token(url, keys, dir.path() / "data0");

  std::vector<std::string> ids;
  for (int i = 0; i < kBmcs; ++i) {
    const std::string rack = i < kTaskBmcs                ? "tasks"
                             : i < kTaskBmcs + kFleetBmcs ? "fleet"
                                                          : "slow";
    const auto res =
        http_send(instances[static_cast<std::size_t>(i % 3)].process.port, "POST", "/api/v1/nodes",
                  {{"name", "so-" + std::to_string(i)},
                   {"driver", "redfish"},
                   {"endpoint", fleet.endpoint(static_cast<std::size_t>(i))},
                   {"credentials", {{"username", "admin"}, {"password", "password"}}},
                   {"location", {{"rack", rack}}}},
                  token);
    INFO(res.body);
    REQUIRE(res.status == 201);
    ids.push_back(res.json()["id"]);
  }
  // Every first poll (status, sensors, the inspection) done, by whichever instance.
  REQUIRE(eventually(
      [&] {
        return scalar(database, "SELECT count(*) FROM poll_schedule WHERE last_finished IS NULL") ==
               "0";
      },
      240s));

  // From here some BMCs answer after longer than the lease: each of their polls outlives it.
  for (int i = kTaskBmcs + kFleetBmcs; i < kBmcs; ++i)
    fleet.set_faults(static_cast<std::size_t>(i), {.latency_ms = kSlowLatencyMs});
  ScaleOutWatch watch(url, {instances[0].name, instances[1].name, instances[2].name});
  const double slow_since = std::stod(scalar(database, "SELECT extract(epoch FROM now())"));
  std::vector<unsigned> reads_before;
  const auto window_start = std::chrono::steady_clock::now();
  for (int i = kTaskBmcs; i < kTaskBmcs + kFleetBmcs; ++i)
    reads_before.push_back(fleet.state(static_cast<std::size_t>(i)).counters().selected_reads);

  std::vector<std::unique_ptr<SseClient>> streams;
  for (auto& instance : instances) {
    streams.push_back(std::make_unique<SseClient>(instance.process.port,
                                                  "/api/v1/stream?kinds=node,task", token));
    REQUIRE(streams.back()->status() == 200);
    streams.back()->until_comment("connected");
  }

  // The instance to kill: one polling a slow BMC (whichever instance asks first gets the due polls,
  // so one may carry most of them). Through its API a change and the bulk action, whose tasks its
  // engine claims at once (the others at their next turn).
  const auto running_tasks_of = [&](const ServeInstance& instance) {
    return "SELECT count(*) FROM tasks WHERE state = 'running' AND lease_owner = '" +
           instance.name + "'";
  };
  const auto polls_of = [&](const ServeInstance& instance) {
    return "SELECT count(*) FROM poll_schedule WHERE lease_owner = '" + instance.name + "'";
  };
  std::size_t chosen = 0;
  REQUIRE(eventually(
      [&] {
        const std::string owner =
            scalar(database,
                   "SELECT s.lease_owner FROM poll_schedule s JOIN nodes n ON n.id = s.node_id "
                   " WHERE n.rack = 'slow' AND s.lease_owner IS NOT NULL LIMIT 1");
        for (chosen = 0; chosen < instances.size(); ++chosen)
          if (instances[chosen].name == owner) return true;
        return false;
      },
      120s));
  const unsigned short entry = instances[chosen].process.port;

  const auto patched = http_send(entry, "PATCH", "/api/v1/nodes/" + ids[0],
                                 {{"tags", {{"scale-out", "seen"}}}}, token);
  INFO(patched.body);
  REQUIRE(patched.status == 200);
  const auto bulk = http_send(entry, "POST", "/api/v1/actions",
                              {{"selector", {{"rack", "tasks"}}},
                               {"action", "power"},
                               {"parameters", {{"action", "cycle"}}},
                               {"max_parallel", 6}},
                              token);
  INFO(bulk.body);
  REQUIRE(bulk.status == 202);
  REQUIRE(bulk.json()["matched"] == kTaskBmcs);
  const std::string bulk_id = bulk.json()["bulk_id"];

  // The kill, once it carries a task. Its engine was asked first, but the others hear of the
  // tasks through LISTEN/NOTIFY as fast and may claim every one of them: then the victim is
  // whichever instance does carry one.
  const auto carries_task = [&](std::size_t i) {
    return scalar(database, running_tasks_of(instances[i])) != "0";
  };
  if (!eventually([&] { return carries_task(chosen); }, 3s)) {
    REQUIRE(eventually(
        [&] {
          for (chosen = 0; chosen < instances.size(); ++chosen)
            if (carries_task(chosen)) return true;
          return false;
        },
        120s));
  }
  ServeInstance& victim = instances[chosen];
  // The stream and the survivor's API: an instance other than the victim and than the one the
  // change went through.
  std::size_t other = (chosen + 1) % instances.size();
  if (instances[other].process.port == entry) other = (other + 1) % instances.size();
  const unsigned short survivor = instances[other].process.port;
  SseClient& stream = *streams[other];
  const std::string held_polls = scalar(database, polls_of(victim));
  const std::string held_tasks = scalar(database, running_tasks_of(victim));
  const double killed_at = std::stod(scalar(database, "SELECT extract(epoch FROM now())"));
  watch.dead(victim.name);
  victim.process.process->signal(SIGKILL);
  REQUIRE(victim.process.process->wait(30s) == -SIGKILL);
  const auto kill_time = std::chrono::steady_clock::now();

  // Its leases run out and the others take its polls and tasks on; then every node is polled
  // again (a slow BMC's poll by an instance new to it takes several of its slow answers).
  const auto since_kill = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - kill_time).count();
  };
  const std::string victim_leases_sql =
      "SELECT (" + polls_of(victim) + ") + (" + running_tasks_of(victim) + ")";
  REQUIRE(eventually([&] { return scalar(database, victim_leases_sql) == "0"; }, 180s));
  const double taken_over = since_kill();
  const std::string stale_sql =
      "SELECT count(*) FROM poll_schedule s JOIN nodes n ON n.id = s.node_id "
      " WHERE s.kind = 'status' AND s.last_finished < to_timestamp(" +
      std::to_string(killed_at) + ")";
  REQUIRE(eventually([&] { return scalar(database, stale_sql + " AND n.rack <> 'slow'") == "0"; },
                     180s));
  const double takeover = since_kill();
  REQUIRE(eventually([&] { return scalar(database, stale_sql) == "0"; }, 180s));
  const double takeover_slow = since_kill();

  json tasks;
  const auto finished = [&] {
    const auto res = http_get(survivor, "/api/v1/tasks?limit=1000&bulk_id=" + bulk_id, token);
    if (res.status != 200) return false;
    tasks = res.json()["items"];
    for (const auto& t : tasks)
      if (t["state"] == "queued" || t["state"] == "running") return false;
    return true;
  };
  REQUIRE(eventually(finished, 240s));
  // Several intervals after the kill, for the watch and the BMCs' counts.
  while (std::chrono::steady_clock::now() <
         kill_time + 6 * std::chrono::seconds(kStatusInterval + kLease))
    std::this_thread::sleep_for(200ms);
  const auto window_end = std::chrono::steady_clock::now();
  std::vector<unsigned> reads_after;
  for (int i = kTaskBmcs; i < kTaskBmcs + kFleetBmcs; ++i)
    reads_after.push_back(fleet.state(static_cast<std::size_t>(i)).counters().selected_reads);
  watch.stop();

  // No task lost, none repeated.
  REQUIRE(tasks.size() == kTaskBmcs);
  int resumed = 0;
  std::set<std::string> task_ids;
  for (const auto& t : tasks) {
    INFO(t.dump());
    CHECK(t["state"] == "succeeded");
    resumed += t["attempts"].get<int>() > 1;
    task_ids.insert(t["id"].get<std::string>());
  }
  CHECK(resumed > 0);  // the victim's tasks, carried on by the others
  for (int i = 0; i < kTaskBmcs; ++i) {
    INFO("BMC " << i);
    CHECK(resets_of(fleet, static_cast<std::size_t>(i)) == 1);
  }

  // No poll claimed again while it ran, the slow ones included, and none lost a lease.
  const auto violations = watch.violations();
  std::string listed;
  for (const auto& v : violations) listed += v + "\n";
  if (!violations.empty())
    for (const auto& instance : instances) {
      std::istringstream lines(instance.process.process->stderr_text());
      for (std::string line; std::getline(lines, line);)
        if (line.find("\"level\":\"warn\"") != std::string::npos ||
            line.find("\"level\":\"error\"") != std::string::npos)
          listed += instance.name + ": " + line + "\n";
    }
  INFO(listed);
  CHECK(violations.empty());
  CHECK(watch.samples() > 100);
  const std::string slow_polled =
      scalar(database,
             "SELECT count(*) FROM poll_schedule s JOIN nodes n ON n.id = s.node_id "
             "WHERE n.rack = 'slow' AND s.kind = 'status' AND s.last_finished > "
             "to_timestamp(" +
                 std::to_string(slow_since) + ")");
  CHECK(slow_polled == std::to_string(kSlowBmcs));
  std::string claimed;  // how the survivors shared the polls
  for (std::size_t i = 0; i < instances.size(); ++i) {
    if (i == chosen) continue;
    CHECK(metric(instances[i].process.port, token, "ironhold_poll_leases_lost_total") == 0);
    claimed += (claimed.empty() ? "" : ", ") +
               std::to_string(static_cast<long long>(
                   metric(instances[i].process.port, token, "ironhold_polls_claimed_total")));
  }
  // The BMCs' side: status reads at least 0.9 of an interval apart (the jitter), so a window of
  // W seconds holds at most W / (0.9 interval) + 1 of them; two instances polling one BMC each
  // interval would read it about twice that often.
  const double window = std::chrono::duration<double>(window_end - window_start).count();
  const unsigned most = static_cast<unsigned>(window / (0.9 * kStatusInterval)) + 1;
  unsigned fewest = ~0u;
  for (std::size_t i = 0; i < reads_after.size(); ++i) {
    const unsigned reads = reads_after[i] - reads_before[i];
    INFO("BMC " << kTaskBmcs + static_cast<int>(i) << ": " << reads << " status reads in " << window
                << " s");
    CHECK(reads <= most);
    fewest = std::min(fewest, reads);
  }

  // Bounded connections, counted by the server.
  const auto connections = watch.max_connections();
  for (std::size_t i = 0; i < connections.size(); ++i) {
    INFO(instances[i].name);
    CHECK(connections[i] > 0);
    CHECK(connections[i] <= kConnectionBound);
  }

  // The stream of another instance: the change made through a third one (usually the dead one),
  // and every task's end, whoever carried it out.
  bool tagged = false;
  std::set<std::string> succeeded;
  stream.until(
      [&](const SseEvent& e) {
        const json data = e.json();
        if (e.type == "node.updated" && data["id"] == ids[0] && data["tags"].is_object() &&
            data["tags"].value("scale-out", "") == "seen")
          tagged = true;
        if (e.type == "task.updated" && task_ids.count(data["id"]) && data["state"] == "succeeded")
          succeeded.insert(data["id"].get<std::string>());
        return tagged && succeeded.size() == task_ids.size();
      },
      120s);
  CHECK(tagged);
  CHECK(succeeded.size() == task_ids.size());

  WARN("3 instances, " << kBmcs << " BMCs (status every " << kStatusInterval << " s, lease "
                       << kLease << " s): the killed one held " << held_polls << " polls and "
                       << held_tasks << " tasks, taken over " << taken_over
                       << " s after the kill; every node polled again " << takeover
                       << " s after it (the slow ones " << takeover_slow << " s); polls claimed "
                       << "by the survivors: " << claimed << "; " << resumed << " tasks resumed; "
                       << watch.samples() << " schedule samples, no double claim; status reads per "
                       << "BMC in " << window << " s: " << fewest << " to at most " << most
                       << " allowed; connections per instance at most " << connections[0] << ", "
                       << connections[1] << ", " << connections[2] << " (bound " << kConnectionBound
                       << ")");
  for (std::size_t i = 0; i < instances.size(); ++i) {
    if (i == chosen) continue;
    instances[i].process.process->signal(SIGTERM);
    CHECK(instances[i].process.process->wait(60s) == 0);
  }
}

}  // namespace scale_out_test

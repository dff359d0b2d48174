#pragma once
// Runs network discoveries: probes every address of a run with a bounded number of threads of its
// own (never the database pool's), enrolls what answered when asked to, and records progress and
// results as it goes. A few runs probe at once; later ones wait queued. Blocking throughout: the
// web layer calls submit() on its blocking pool.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "inventory/db/audit_store.hpp"
#include "inventory/db/discovery_store.hpp"
#include "inventory/db/node_store.hpp"
#include "inventory/discovery/discovery_request.hpp"
#include "inventory/discovery/discovery_run.hpp"
#include "inventory/drivers/endpoint_prober.hpp"

namespace ironhold::discovery {

// Who asked, for the run's requested_by and the audit entries of what it enrolls.
struct Requester {
  std::string name;  // the token's name
  std::optional<std::string> id;
  std::optional<std::string> request_id;
};

struct DiscoveryServiceOptions {
  int max_running = 2;  // runs probing at once; each uses up to its own concurrency in threads
  std::chrono::seconds lease{30};
  std::chrono::seconds renew_every{10};
  std::chrono::milliseconds flush_every{1000};  // how often progress reaches the database
};

class DiscoveryService {
 public:
  DiscoveryService(db::DiscoveryStore& store, db::NodeStore& nodes, db::AuditStore& audit,
                   EndpointProber& prober, DiscoveryServiceOptions options = {});
  // stop()s.
  ~DiscoveryService();
  DiscoveryService(const DiscoveryService&) = delete;
  DiscoveryService& operator=(const DiscoveryService&) = delete;

  // Records the run as queued and schedules it; returns it as recorded.
  DiscoveryRun submit(DiscoveryRequest request, const Requester& requester);
  // Marks failed the open runs whose instance stopped renewing their lease; returns how many.
  int fail_abandoned();
  // Probes in flight finish (each within its timeout), no new one starts, and this instance's
  // unfinished runs are marked failed. Idempotent.
  void stop();

 private:
  struct Job {
    std::string id;
    DiscoveryRequest request;
    Requester requester;
  };
  struct Probed;
  class Progress;

  void coordinate();
  void keep_leases();
  void run(const Job& job);
  Probed probe_address(const Job& job, std::size_t index) const;
  void handle(const Job& job, const Probed& probed, Progress& progress);
  void enroll(const Job& job, const Probed& probed, DiscoveryResult& result);

  db::DiscoveryStore& store_;
  db::NodeStore& nodes_;
  db::AuditStore& audit_;
  EndpointProber& prober_;
  DiscoveryServiceOptions options_;
  const std::string owner_;  // this instance's lease owner id

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  std::atomic<bool> stopping_{false};
  std::mutex enroll_mutex_;  // "already enrolled?" and the enrollment, one address at a time
  std::vector<std::thread> coordinators_;
  std::thread lease_keeper_;
};

}  // namespace ironhold::discovery

#include "inventory/discovery/discovery_service.hpp"

#include <array>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"
#include "inventory/model/node_spec.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::discovery {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::uint16_t kRedfishPort = 443;
constexpr std::uint16_t kIpmiPort = 623;

std::string new_owner_id() {
  std::array<std::uint8_t, 8> bytes{};
  crypto::random_bytes(bytes);
  return "discovery-" + crypto::to_hex(bytes);
}

json attempts_json(const ProbeResult& result) {
  json out = json::array();
  for (const auto& a : result.attempts)
    out.push_back({{"transport", a.transport}, {"outcome", a.outcome}});
  return out;
}

// The port a BMC answered on, as the user would write it.
std::uint16_t port_of(const ProbeResult& result) {
  if (result.endpoint->port) return *result.endpoint->port;
  return *result.driver == "ipmi" ? kIpmiPort : kRedfishPort;
}

}  // namespace

// What probing one address gave: the probe that found a BMC (or the last one tried), or why the
// probe itself failed.
struct DiscoveryService::Probed {
  std::size_t index = 0;
  std::uint16_t port = 0;
  std::optional<ProbeResult> found;
  std::optional<std::string> failure;
};

// Counts and results not yet written; written at most every flush_every, and at the end.
class DiscoveryService::Progress {
 public:
  Progress(db::DiscoveryStore& store, std::string id, std::chrono::milliseconds every)
      : store_(store), id_(std::move(id)), every_(every) {}

  DiscoveryCounts counts;
  void add(DiscoveryResult result) { pending_.push_back(std::move(result)); }
  void touch() { dirty_ = true; }
  void flush(bool force) {
    if (!dirty_ && pending_.empty()) return;
    if (!force && Clock::now() - last_ < every_) return;
    store_.record(id_, counts, pending_);
    pending_.clear();
    dirty_ = false;
    last_ = Clock::now();
  }

 private:
  db::DiscoveryStore& store_;
  std::string id_;
  std::chrono::milliseconds every_;
  std::vector<DiscoveryResult> pending_;
  bool dirty_ = false;
  Clock::time_point last_ = Clock::now();
};

DiscoveryService::DiscoveryService(db::DiscoveryStore& store, db::NodeStore& nodes,
                                   db::AuditStore& audit, EndpointProber& prober,
                                   DiscoveryServiceOptions options)
    : store_(store),
      nodes_(nodes),
      audit_(audit),
      prober_(prober),
      options_(options),
      owner_(new_owner_id()) {
  for (int i = 0; i < std::max(1, options_.max_running); ++i)
    coordinators_.emplace_back([this] { coordinate(); });
  lease_keeper_ = std::thread([this] { keep_leases(); });
}

DiscoveryService::~DiscoveryService() {
  stop();
}

DiscoveryRun DiscoveryService::submit(DiscoveryRequest request, const Requester& requester) {
  if (stopping_) throw Error(ErrorKind::unavailable, "the service is stopping");
  db::NewDiscoveryRun row;
  row.parameters = public_parameters(request);
  row.address_count = static_cast<int>(request.addresses.size());
  row.requested_by = requester.name;
  row.project = request.project;
  row.requested_by_id = requester.id;
  row.request_id = requester.request_id;
  row.lease_owner = owner_;
  row.lease = options_.lease;
  DiscoveryRun run = store_.create(row);
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(Job{run.id, std::move(request), requester});
  }
  wake_.notify_all();
  return run;
}

int DiscoveryService::fail_abandoned() {
  return store_.fail_abandoned(
      "interrupted by a restart: the instance running it stopped before it finished");
}

void DiscoveryService::stop() {
  if (stopping_.exchange(true)) return;
  wake_.notify_all();
  for (auto& t : coordinators_) t.join();
  coordinators_.clear();
  if (lease_keeper_.joinable()) lease_keeper_.join();
  try {
    const int failed =
        store_.fail_owned(owner_, "interrupted: the service stopped before the run finished");
    if (failed) log::warn("discovery runs interrupted by the shutdown", {{"runs", failed}});
  } catch (const std::exception& e) {
    // Their leases run out; the next reader marks them failed.
    log::warn("could not mark the interrupted discovery runs", {{"error", e.what()}});
  }
}

void DiscoveryService::coordinate() {
  for (;;) {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    try {
      run(job);
    } catch (const std::exception& e) {
      log::error("discovery run failed", {{"run", job.id}, {"error", e.what()}});
      try {
        store_.finish(job.id, "failed", std::string("internal error: ") + e.what());
      } catch (const std::exception&) {
        // The lease runs out and the next reader marks it failed.
      }
    }
  }
}

void DiscoveryService::keep_leases() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, options_.renew_every, [this] { return stopping_.load(); });
    if (stopping_) return;
    lock.unlock();
    try {
      store_.renew_leases(owner_, options_.lease);
    } catch (const std::exception& e) {
      log::warn("could not renew the discovery leases", {{"error", e.what()}});
    }
    lock.lock();
  }
}

// Workers take addresses in order and hand what they found to this thread, which alone talks to
// the database for the run: a sweep of thousands of addresses holds one connection at a time.
void DiscoveryService::run(const Job& job) {
  store_.mark_running(job.id);
  const std::size_t total = job.request.addresses.size();
  const std::size_t workers =
      std::min(total, static_cast<std::size_t>(std::max(1, job.request.concurrency)));

  std::atomic<std::size_t> next{0};
  std::mutex done_mutex;
  std::condition_variable done_cv;
  std::deque<Probed> done;
  std::size_t running = workers;

  auto work = [&] {
    for (;;) {
      if (stopping_) break;
      const std::size_t i = next.fetch_add(1);
      if (i >= total) break;
      Probed p = probe_address(job, i);
      std::lock_guard lock(done_mutex);
      done.push_back(std::move(p));
      done_cv.notify_one();
    }
    std::lock_guard lock(done_mutex);
    --running;
    done_cv.notify_one();
  };
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (std::size_t i = 0; i < workers; ++i) threads.emplace_back(work);

  Progress progress(store_, job.id, options_.flush_every);
  std::exception_ptr failure;
  for (;;) {
    std::deque<Probed> batch;
    bool finished = false;
    {
      std::unique_lock lock(done_mutex);
      done_cv.wait_for(lock, options_.flush_every, [&] { return !done.empty() || running == 0; });
      batch.swap(done);
      finished = running == 0 && batch.empty();
    }
    if (!failure) {
      try {
        for (const auto& p : batch) handle(job, p, progress);
        progress.flush(finished);
      } catch (...) {
        // The database is gone or broken: stop probing, report once the workers are back.
        failure = std::current_exception();
        next.store(total);
      }
    }
    if (finished) break;
  }
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  if (progress.counts.probed < static_cast<int>(total)) return;  // stopping: stop() marks it
  store_.finish(job.id, "succeeded", std::nullopt);
}

DiscoveryService::Probed DiscoveryService::probe_address(const Job& job, std::size_t index) const {
  Probed out;
  out.index = index;
  Endpoint host{"", job.request.addresses[index], std::nullopt};
  // No ports given: one probe at the prober's standard ports.
  std::vector<std::optional<std::uint16_t>> ports;
  if (job.request.ports.empty()) ports.push_back(std::nullopt);
  for (auto p : job.request.ports) ports.push_back(p);
  try {
    for (const auto& port : ports) {
      if (stopping_) break;
      ProbeResult result = prober_.probe_at(host, ProbePorts{port, port, job.request.timeout});
      if (result.driver && result.endpoint) {
        out.port = port_of(result);
        out.found = std::move(result);
        return out;
      }
    }
  } catch (const std::exception& e) {
    out.port = job.request.ports.empty() ? kRedfishPort : job.request.ports.front();
    out.failure = std::string("the probe failed: ") + e.what();
  }
  return out;
}

void DiscoveryService::handle(const Job& job, const Probed& probed, Progress& progress) {
  ++progress.counts.probed;
  progress.touch();
  if (!probed.found && !probed.failure) return;  // nothing answered as a BMC: not reported
  DiscoveryResult result;
  result.seq = static_cast<int>(probed.index);
  result.address = job.request.addresses[probed.index];
  result.port = probed.port;
  if (probed.failure) {
    result.status = "error";
    result.detail = *probed.failure;
    ++progress.counts.errors;
    progress.add(std::move(result));
    return;
  }
  const ProbeResult& found = *probed.found;
  ++progress.counts.found;
  result.driver = *found.driver;
  result.endpoint = found.endpoint->to_string();
  result.detail = found.attempts.empty() ? std::string() : found.attempts.back().outcome;

  std::lock_guard lock(enroll_mutex_);
  auto existing = nodes_.find_by_endpoint(*result.endpoint);
  if (!existing && !found.endpoint->port) {
    // A node may have been enrolled with the standard port spelled out.
    Endpoint spelled = *found.endpoint;
    spelled.port = probed.port;
    existing = nodes_.find_by_endpoint(spelled.to_string());
  }
  if (existing && existing->project != job.request.project) {
    // Enrolled in another project: the run's readers may not learn which node it is.
    result.status = "already_enrolled";
    result.detail = "already enrolled, in another project";
    ++progress.counts.already_enrolled;
  } else if (existing) {
    result.status = "already_enrolled";
    result.node_id = existing->id;
    result.node_name = existing->name;
    result.detail = "already enrolled as node " + existing->name;
    ++progress.counts.already_enrolled;
  } else if (!job.request.enroll) {
    result.status = "found";
  } else {
    enroll(job, probed, result);
    ++(result.status == "enrolled" ? progress.counts.enrolled : progress.counts.errors);
  }
  progress.add(std::move(result));
}

// The enrollment path of POST /api/v1/nodes: the same validation (parse_node_spec) on the body a
// client would have sent with the driver and endpoint the probe found, the same store call, and
// an audit entry in the requester's name.
void DiscoveryService::enroll(const Job& job, const Probed& probed, DiscoveryResult& result) {
  const ProbeResult& found = *probed.found;
  const std::string name = node_name_for(job.request.name_prefix, *found.endpoint);
  json body = {{"name", name},
               {"driver", *found.driver},
               {"endpoint", *result.endpoint},
               {"credentials",
                {{"username", job.request.credentials->username},
                 {"password", job.request.credentials->password}}}};
  if (!job.request.tags.empty()) body["tags"] = job.request.tags;
  body["project"] = job.request.project;

  db::AuditEntry entry;
  entry.actor = job.requester.name;
  entry.actor_id = job.requester.id;
  entry.action = "discovery.enroll";
  entry.project = job.request.project;
  entry.target_type = "node";
  entry.target_name = name;
  entry.request_id = job.requester.request_id;
  entry.details = {{"discovery_id", job.id},
                   {"address", result.address},
                   {"driver", *found.driver},
                   {"endpoint", *result.endpoint},
                   {"probe", {{"attempts", attempts_json(found)}}}};
  try {
    const Node node = nodes_.create(parse_node_spec(body));
    result.status = "enrolled";
    result.node_id = node.id;
    result.node_name = node.name;
    result.detail = "enrolled as node " + node.name;
    entry.target_id = node.id;
    entry.outcome = "ok";
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::unavailable || e.kind() == ErrorKind::internal) throw;
    result.status = "error";
    result.node_name = name;
    result.detail = std::string("could not enroll: ") + e.what();
    entry.outcome = "error";
    entry.details["error"] = e.what();
  }
  audit_.record(entry);
}

}  // namespace ironhold::discovery

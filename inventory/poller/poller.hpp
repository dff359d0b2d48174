#pragma once
// The poller: keeps the inventory current by leasing due polls from the schedule in PostgreSQL,
// running them through the node drivers on the shared Asio executor (thousands concurrently, no
// thread per BMC), and writing the results back in batches. Database work runs on the blocking
// pool, never on an I/O thread. Several instances on one database share the work through the
// leases; an instance that dies leaves leases that expire and move on, while the leases of a live
// instance's polls are renewed for as long as the polls run (a heartbeat).
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "inventory/db/poll_store.hpp"
#include "inventory/drivers/node_driver.hpp"
#include "inventory/poller/poll_metrics.hpp"
#include "inventory/poller/poll_policy.hpp"

namespace ironhold {

struct PollerOptions {
  std::string owner;  // this instance's name in leases; a random one when empty
  PollIntervals intervals;
  // How long a claimed poll stays this instance's without a renewal: what a dead instance's polls
  // wait before another takes them. The polls in flight are renewed every third of it (one
  // batched UPDATE), however long they take, so a slow BMC is never polled by two instances.
  std::chrono::seconds lease{30};
  int claim_batch = 500;
  // Each poll in flight holds a libcurl transfer, its TLS buffers and its documents (~45 KiB
  // measured by bench/redfish_sweep). 500 at ~50 ms per BMC answer could run 10,000 polls a
  // second, more than two cores parse: more only adds memory (3,000 BMCs swept with 250 in flight
  // peaked at 145 MiB, with 1,000 at 178 MiB, in the same time).
  std::size_t max_in_flight = 500;
  // A status poll still waiting after `slow_after` (a silent BMC, a body dripping in, IPMI
  // retransmissions) stops counting against max_in_flight, so that a fifth of a fleet gone bad
  // cannot hold every slot while the healthy rest waits its turn. Such a poll holds a socket and
  // a document or two; at most max_slow of them run besides the max_in_flight others. Sensor
  // polls and inspections always count: they gather documents as they go. A status poll that
  // waits out a delay of its own (a retry's backoff) joins the slow lane at once, and so does one
  // of a BMC whose last status poll took slow_after or longer. 0: never.
  std::chrono::milliseconds slow_after{2000};
  std::size_t max_slow = 4000;
  // Polls of BMCs whose last poll of that kind failed (and not yet in the slow lane) at most this
  // many at once, within max_in_flight. They are claimed after the working BMCs' polls already;
  // this also bounds what they take from them while both run (reconnections, TLS handshakes and
  // retransmissions to broken BMCs burn CPU the healthy rest needs). 0: no limit of their own.
  std::size_t max_failing = 64;
  // Due polls of failing BMCs also wait until the working BMCs' due polls are all claimed and at
  // most a quarter of max_in_flight of them still run, or until they have waited this long (so
  // that a poller never idle of working polls still reaches the failing BMCs). When a sweep falls
  // due at once, the broken BMCs' reconnections, handshakes and retransmissions then come after
  // the working BMCs' polls instead of beside their tail: at 10,000 BMCs with a fifth broken, on
  // two cores, that tail had taken 20 % longer. Spread over the interval, as polls normally are,
  // the working polls in flight stay far below the quarter and nothing waits. 0: no waiting.
  std::chrono::milliseconds failing_wait_max{10000};
  // Inventory polls (inspections) at most this many at once, within max_in_flight. An inspection
  // holds every document of its BMC's tree until it ends (~0.5 MB parsed for an HGX server, for
  // ~10 s at 50 ms per document): 500 of them at once, when a fleet is enrolled or its daily
  // inventory falls due together, held 200 MB of the heap, and glibc kept most of it as free
  // pages between the long-lived connections made meanwhile (bench/fleet_poll: 336 MiB of RSS
  // with 100 MB in use). They are claimed after the due status and sensor polls. 0: no limit.
  std::size_t max_inspections = 100;
  std::chrono::milliseconds idle_wait{1000};  // between claims when nothing more was due
  std::chrono::milliseconds flush_interval{200};
  std::size_t flush_batch = 200;
};

class Poller {
 public:
  // `drivers` by driver name ("redfish", ...): nodes with another driver are not claimed.
  Poller(boost::asio::any_io_executor executor, boost::asio::thread_pool& blocking_pool,
         db::PollStore& store, std::map<std::string, NodeDriver*> drivers, PollerOptions options);
  ~Poller();
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  void start();
  // Stops claiming, waits (up to `grace`) for polls in flight, records what finished, and logs
  // the drivers out of their sessions. Blocks; never call it from an I/O thread. A poll still
  // waiting on its BMC after `grace` stays on the executor: the drivers must outlive it, so stop
  // the executor's threads (and shut the io_context down) before destroying them, as ServiceHost
  // does.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(10));

  const PollMetrics& metrics() const { return metrics_; }
  const std::string& owner() const { return options_.owner; }

 private:
  struct State;
  boost::asio::awaitable<void> claim_loop();
  boost::asio::awaitable<void> flush_loop();
  boost::asio::awaitable<void> heartbeat_loop();
  struct Slot;
  boost::asio::awaitable<void> run_poll(db::PollJob job, std::shared_ptr<Slot> slot);
  void release_slow_slots();
  void move_to_slow_lane(Slot& slot);  // on the strand
  bool offer_failing() const;          // on the strand
  void note_waiting(const std::shared_ptr<Slot>& slot);
  boost::asio::awaitable<void> flush();
  template <class Fn>
  boost::asio::awaitable<std::invoke_result_t<Fn>> blocking(Fn fn);

  boost::asio::strand<boost::asio::any_io_executor> strand_;
  boost::asio::thread_pool& blocking_pool_;
  db::PollStore& store_;
  std::map<std::string, NodeDriver*> drivers_;
  std::vector<std::string> driver_names_;
  PollerOptions options_;
  PollMetrics metrics_;
  std::shared_ptr<State> state_;
  bool started_ = false;
  std::atomic<bool> stopped_{false};
};

}  // namespace ironhold

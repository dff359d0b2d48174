#pragma once
// The task engine: claims tasks from PostgreSQL (see TaskStore) and carries them out on the
// shared Asio executor, each under a lease it renews while it works. Several instances on one
// database share the queue; a task whose worker died is resumed by whichever instance claims it
// once the lease has run out. Per BMC and per cloud account, at most max_per_target tasks run at
// once on this instance (the node lock itself is the queue's: one task per node at a time).
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "inventory/db/poll_store.hpp"
#include "inventory/db/provisioning_store.hpp"
#include "inventory/db/task_store.hpp"
#include "inventory/drivers/node_driver.hpp"
#include "inventory/tasks/firmware_downloads.hpp"
#include "inventory/tasks/firmware_spool.hpp"
#include "inventory/tasks/task_run.hpp"
#include "inventory/util/in_flight.hpp"

namespace ironhold {

class CloudSync;

struct TaskEngineOptions {
  std::string owner;                         // this instance's name in leases; random when empty
  std::chrono::seconds lease{60};            // renewed every third of it while a task runs
  std::chrono::milliseconds idle_wait{500};  // between claims when nothing was claimable
  int max_running = 64;                      // tasks this instance carries out at once
  int max_per_target = 4;                    // of those, on one BMC or one cloud account
  std::chrono::milliseconds verify_interval{1000};  // between readings while verifying
};

class TaskEngine {
 public:
  // `drivers` by driver name ("redfish", "ipmi"); `cloud` carries cloud nodes' actions (null: a
  // cloud node's task fails saying so); `polls` records inspections (null: inspect tasks fail);
  // `provisioning` holds the PXE sessions of owned servers' reprovisioning (null: those fail).
  TaskEngine(boost::asio::any_io_executor executor, boost::asio::thread_pool& blocking_pool,
             db::TaskStore& store, std::map<std::string, NodeDriver*> drivers, CloudSync* cloud,
             db::PollStore* polls, db::ProvisioningStore* provisioning,
             TaskEngineOptions options = {});
  ~TaskEngine();
  TaskEngine(const TaskEngine&) = delete;
  TaskEngine& operator=(const TaskEngine&) = delete;

  void start();
  // Stops claiming; tasks in flight stop at their next step boundary and are handed back
  // unfinished (their steps saved, their lease ended) so that the next instance resumes them.
  // Blocks up to `grace`; never call it from an I/O thread.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(10));
  // Lets firmware update tasks run: BMCs download images from `downloads` (when it has a base
  // URL) or are sent copies `spool` makes (when not null). Set before start(); without it firmware
  // tasks fail saying so.
  void serve_firmware(tasks::FirmwareDownloads downloads,
                      std::shared_ptr<const tasks::FirmwareSpool> spool) {
    downloads_ = std::move(downloads);
    spool_ = std::move(spool);
  }
  // Claims now rather than at the next idle tick (a task was just created).
  void wake();

  const std::string& owner() const { return options_.owner; }
  std::size_t running() const { return in_flight_.count(); }

 private:
  boost::asio::awaitable<void> claim_loop();
  boost::asio::awaitable<void> run_task(db::TaskJob job);
  boost::asio::awaitable<void> renew_loop(std::string task_id,
                                          std::shared_ptr<tasks::RunSignals> signals,
                                          std::shared_ptr<std::atomic<bool>> finished);
  boost::asio::awaitable<std::optional<tasks::TaskOutcome>> carry_out(tasks::TaskRun& run);
  // Waits for room under the per-target limit; false when interrupted first.
  boost::asio::awaitable<bool> take_target_slot(const std::string& key,
                                                const tasks::RunSignals& signals);
  void give_target_slot(const std::string& key);

  boost::asio::any_io_executor executor_;
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  boost::asio::thread_pool& blocking_pool_;
  db::TaskStore& store_;
  std::map<std::string, NodeDriver*> drivers_;
  CloudSync* cloud_;
  db::PollStore* polls_;
  db::ProvisioningStore* provisioning_;
  std::optional<tasks::FirmwareDownloads> downloads_;
  std::shared_ptr<const tasks::FirmwareSpool> spool_;
  TaskEngineOptions options_;
  boost::asio::steady_timer wake_timer_;  // the claim loop's pause; touched on the strand only
  // What a posted wake() reaches: a task's end posts one after it stopped counting in
  // in_flight_, so stop() can return, and the engine be gone, before it runs. The destructor
  // clears `engine` first.
  struct WakeTarget {
    std::mutex mutex;
    TaskEngine* engine = nullptr;
  };
  std::shared_ptr<WakeTarget> wake_target_ = std::make_shared<WakeTarget>();
  InFlight in_flight_;
  std::mutex mutex_;  // guards the two members below
  std::map<std::string, int> per_target_;
  std::set<std::shared_ptr<tasks::RunSignals>> active_;
  std::atomic<bool> stopping_{false};
  InFlight claim_loop_running_;
  bool started_ = false;
  std::atomic<bool> stopped_{false};
};

}  // namespace ironhold

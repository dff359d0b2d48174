#pragma once
// The cloud sync: keeps the cloud nodes current by leasing due account syncs from PostgreSQL,
// listing each account's instances through its provider's driver on the shared Asio executor
// (accounts concurrently, each one sync at a time), and recording the listing on the blocking
// pool. An account is synced every sync_interval_s (5 minutes by default), when asked
// (POST …/sync) and right after every action on it. Several instances share the accounts through
// the leases, like the poller shares the polls.
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "inventory/db/cloud_account_store.hpp"
#include "inventory/drivers/cloud_driver.hpp"

namespace ironhold {

struct CloudSyncOptions {
  std::string owner;                // this instance's name in leases; random when empty
  std::chrono::seconds lease{600};  // longer than a listing may take, retries included
  std::chrono::milliseconds idle_wait{1000};
  int max_concurrent = 8;  // accounts listed at once
  // While an instance is between states (starting, stopping, rebuilding), its account is listed
  // again this soon, so a node's state follows an action without waiting for the interval.
  std::chrono::milliseconds transitional_recheck{std::chrono::seconds(10)};
};

class CloudSync {
 public:
  // `drivers` by provider name ("openstack", "ec2", "bcc"); an account of a provider without a
  // driver is recorded as failing with `unsupported`.
  CloudSync(boost::asio::any_io_executor executor, boost::asio::thread_pool& blocking_pool,
            db::CloudAccountStore& store, std::map<std::string, CloudDriver*> drivers,
            CloudSyncOptions options = {});
  ~CloudSync();
  CloudSync(const CloudSync&) = delete;
  CloudSync& operator=(const CloudSync&) = delete;

  void start();
  // Stops claiming, waits (up to `grace`) for listings in flight and ends the drivers' work.
  // Blocks; never call it from an I/O thread.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(10));
  // Looks for due syncs now rather than at the next idle tick (a sync was requested).
  void wake();

  // A power action or a rebuild on a cloud node through its account's driver; the account's
  // sync is due right after, so the node's state follows. Never throws for what the provider
  // does; throws ironhold::Error for a node that is not a cloud instance in service.
  boost::asio::awaitable<ActionReport> power(std::string node_id_or_name, PowerAction action);
  boost::asio::awaitable<ActionReport> rebuild(std::string node_id_or_name, RebuildRequest request);
  // The instance as its provider describes it now (for a task verifying an action's outcome);
  // no sync is requested.
  boost::asio::awaitable<InstanceReport> describe(std::string node_id_or_name);
  // describe(), then the account's sync is due at once so that the inventory records what the
  // provider reports (an inspect task on a cloud node).
  boost::asio::awaitable<InstanceReport> inspect(std::string node_id_or_name);

  // The driver of a provider, or null.
  CloudDriver* driver(const std::string& provider) const;
  const std::string& owner() const { return options_.owner; }

 private:
  struct State;
  // A cloud node's account and instance, with its provider's driver.
  struct Bound {
    db::CloudNodeTarget target;
    CloudDriver* driver = nullptr;
  };
  // Throws ironhold::Error for a node that is not a cloud instance in service, or a provider
  // without a driver here.
  boost::asio::awaitable<Bound> bind(const std::string& node_id_or_name);
  boost::asio::awaitable<void> claim_loop();
  boost::asio::awaitable<void> run_sync(db::CloudSyncJob job);
  boost::asio::awaitable<void> after_action(std::string account_id);

  boost::asio::any_io_executor executor_;
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  boost::asio::thread_pool& blocking_pool_;
  db::CloudAccountStore& store_;
  std::map<std::string, CloudDriver*> drivers_;
  CloudSyncOptions options_;
  std::shared_ptr<State> state_;
  bool started_ = false;
  std::atomic<bool> stopped_{false};
};

}  // namespace ironhold

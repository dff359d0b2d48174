#include "inventory/cloud/cloud_sync.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <future>
#include <vector>

#include "inventory/error.hpp"
#include "inventory/util/lease_owner.hpp"
#include "inventory/util/log.hpp"
#include "inventory/util/on_pool.hpp"

namespace ironhold {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

// Everything the coroutines share; touched only on the strand.
struct CloudSync::State {
  explicit State(const asio::strand<asio::any_io_executor>& strand) : wake(strand) {}
  asio::steady_timer wake;  // the claim loop's pause
  bool stopping = false;
  int in_flight = 0;
  std::vector<std::promise<void>> idle_waiters;  // stop() waits for in_flight == 0
};

namespace {

InstanceListing no_driver(const std::string& provider) {
  InstanceListing listing;
  listing.error = DriverError{DriverErrorCode::unsupported,
                              "this server has no driver for provider " + provider};
  return listing;
}

}  // namespace

CloudSync::CloudSync(asio::any_io_executor executor, asio::thread_pool& blocking_pool,
                     db::CloudAccountStore& store, std::map<std::string, CloudDriver*> drivers,
                     CloudSyncOptions options)
    : executor_(executor),
      strand_(asio::make_strand(executor)),
      blocking_pool_(blocking_pool),
      store_(store),
      drivers_(std::move(drivers)),
      options_(std::move(options)),
      state_(std::make_shared<State>(strand_)) {
  if (options_.owner.empty()) options_.owner = random_lease_owner();
}

CloudSync::~CloudSync() {
  stop(std::chrono::milliseconds(0));
}

CloudDriver* CloudSync::driver(const std::string& provider) const {
  const auto it = drivers_.find(provider);
  return it == drivers_.end() ? nullptr : it->second;
}

void CloudSync::start() {
  started_ = true;
  asio::co_spawn(strand_, claim_loop(), asio::detached);
}

void CloudSync::wake() {
  asio::post(strand_, [state = state_] { state->wake.cancel(); });
}

asio::awaitable<void> CloudSync::claim_loop() {
  auto state = state_;
  while (!state->stopping) {
    const int room = options_.max_concurrent - state->in_flight;
    std::vector<db::CloudSyncJob> jobs;
    if (room > 0) {
      auto claim = [this, room] {
        try {
          return store_.claim(options_.owner, room, options_.lease);
        } catch (const std::exception& e) {
          log::warn("could not claim cloud account syncs; retrying", {{"error", e.what()}});
          return std::vector<db::CloudSyncJob>{};
        }
      };
      jobs = co_await on_pool(blocking_pool_, std::move(claim));
    }
    for (auto& job : jobs) {
      ++state->in_flight;
      asio::co_spawn(executor_, run_sync(std::move(job)), asio::detached);
    }
    if (state->stopping) break;
    state->wake.expires_after(options_.idle_wait);
    boost::system::error_code ec;
    auto token = asio::redirect_error(asio::use_awaitable, ec);
    co_await state->wake.async_wait(token);
  }
}

asio::awaitable<void> CloudSync::run_sync(db::CloudSyncJob job) {
  const auto started = Clock::now();
  CloudDriver* d = driver(job.target.provider);
  InstanceListing listing;
  if (d)
    listing = co_await d->list_instances(job.target);
  else
    listing = no_driver(job.target.provider);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
  auto record = [this, job, listing = std::move(listing), took] {
    try {
      const auto summary =
          store_.record_sync(job, options_.owner, listing, took, options_.transitional_recheck);
      if (listing.error)
        log::warn("cloud account sync failed",
                  {{"account", job.target.account_name},
                   {"error", std::string(to_string(listing.error->code))},
                   {"message", listing.error->message}});
      else if (summary.created || summary.retired)
        log::info("cloud account synced", {{"account", job.target.account_name},
                                           {"instances", summary.instances},
                                           {"enrolled", summary.created},
                                           {"retired", summary.retired}});
    } catch (const std::exception& e) {
      log::error("could not record a cloud account sync; its lease expires and it runs again",
                 {{"account", job.target.account_name}, {"error", e.what()}});
    }
  };
  co_await on_pool(blocking_pool_, std::move(record));
  auto finish = [state = state_] {
    --state->in_flight;
    state->wake.cancel();  // room to claim more, and a sync requested meanwhile is due
    if (state->in_flight == 0) {
      for (auto& waiter : state->idle_waiters) waiter.set_value();
      state->idle_waiters.clear();
    }
  };
  asio::post(strand_, std::move(finish));
}

asio::awaitable<void> CloudSync::after_action(std::string account_id) {
  auto request = [this, account_id] {
    try {
      store_.request_sync(account_id);
    } catch (const std::exception& e) {
      log::warn("could not make a cloud account's sync due after an action",
                {{"account_id", account_id}, {"error", e.what()}});
    }
  };
  co_await on_pool(blocking_pool_, std::move(request));
  wake();
}

// Takes the id by reference and builds Bound outside any co_await expression: GCC 12 destroys
// temporaries inside a co_await expression too early (a by-value argument, a braced Bound).
asio::awaitable<CloudSync::Bound> CloudSync::bind(const std::string& node) {
  auto lookup = [this, node] { return store_.node_target(node); };
  db::CloudNodeTarget target = co_await on_pool(blocking_pool_, std::move(lookup));
  Bound bound;
  bound.target = std::move(target);
  bound.driver = driver(bound.target.account.provider);
  if (!bound.driver)
    throw Error(ErrorKind::unavailable,
                "this server has no driver for provider " + bound.target.account.provider);
  co_return bound;
}

asio::awaitable<ActionReport> CloudSync::power(std::string node, PowerAction action) {
  const Bound b = co_await bind(node);
  ActionReport report = co_await b.driver->power(b.target.account, b.target.provider_id, action);
  co_await after_action(b.target.account.account_id);
  co_return report;
}

asio::awaitable<ActionReport> CloudSync::rebuild(std::string node, RebuildRequest request) {
  const Bound b = co_await bind(node);
  // The request is moved into the driver's frame here, outside the co_await (GCC 12).
  auto rebuilding = b.driver->rebuild(b.target.account, b.target.provider_id, std::move(request));
  ActionReport report = co_await std::move(rebuilding);
  co_await after_action(b.target.account.account_id);
  co_return report;
}

asio::awaitable<InstanceReport> CloudSync::describe(std::string node) {
  const Bound b = co_await bind(node);
  InstanceReport report =
      co_await b.driver->describe_instance(b.target.account, b.target.provider_id);
  co_return report;
}

asio::awaitable<InstanceReport> CloudSync::inspect(std::string node) {
  const Bound b = co_await bind(node);
  InstanceReport report =
      co_await b.driver->describe_instance(b.target.account, b.target.provider_id);
  co_await after_action(b.target.account.account_id);
  co_return report;
}

void CloudSync::stop(std::chrono::milliseconds grace) {
  if (!started_ || stopped_.exchange(true)) return;
  auto state = state_;
  std::promise<void> idle;
  auto idle_future = idle.get_future();
  std::promise<void> stopping;
  asio::post(strand_, [state, &idle, &stopping] {
    state->stopping = true;
    state->wake.cancel();
    if (state->in_flight == 0)
      idle.set_value();
    else
      state->idle_waiters.push_back(std::move(idle));
    stopping.set_value();
  });
  // The executor may already be stopped (a service shutting down without running): don't hang.
  if (stopping.get_future().wait_for(std::chrono::seconds(2)) != std::future_status::ready) return;
  idle_future.wait_for(grace);
  for (const auto& [name, driver] : drivers_) {
    if (!driver) continue;
    auto end = asio::co_spawn(strand_, driver->shutdown(), asio::use_future);
    end.wait_for(std::chrono::seconds(5));
  }
}

}  // namespace ironhold

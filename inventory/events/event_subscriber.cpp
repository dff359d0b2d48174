#include "inventory/events/event_subscriber.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>

#include "inventory/crypto/primitives.hpp"
#include "inventory/util/lease_owner.hpp"
#include "inventory/util/log.hpp"
#include "inventory/util/on_pool.hpp"

namespace ironhold::events {

namespace asio = boost::asio;

namespace {

// A fresh secret for each subscription: 256 bits, URL-safe.
std::string new_secret() {
  std::array<std::uint8_t, 32> bytes{};
  crypto::random_bytes(bytes);
  return crypto::base64url(bytes);
}

std::string message_of(const std::optional<DriverError>& error) {
  return error ? std::string(to_string(error->code)) + ": " + error->message : std::string();
}

}  // namespace

EventSubscriber::EventSubscriber(asio::any_io_executor executor, asio::thread_pool& pool,
                                 db::EventSubscriptionStore& store,
                                 std::map<std::string, NodeDriver*> drivers,
                                 EventSubscriberOptions options)
    : executor_(executor),
      pool_(pool),
      store_(store),
      drivers_(std::move(drivers)),
      options_(std::move(options)),
      timer_(executor) {
  if (options_.owner.empty()) options_.owner = random_lease_owner();
}

EventSubscriber::~EventSubscriber() {
  stop(std::chrono::milliseconds(0));
}

void EventSubscriber::set_advertise_url(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  std::lock_guard lock(url_mutex_);
  advertise_url_ = std::move(url);
}

std::string EventSubscriber::advertise_url() const {
  std::lock_guard lock(url_mutex_);
  return advertise_url_;
}

void EventSubscriber::start() {
  schedule_round(std::chrono::milliseconds(0));
}

void EventSubscriber::stop(std::chrono::milliseconds grace) {
  if (stopped_.exchange(true)) return;
  asio::post(executor_, [this] { timer_.cancel(); });
  in_flight_.wait_idle(grace);
}

std::chrono::seconds EventSubscriber::backoff(int failures) const {
  auto wait = options_.retry_base;
  for (int i = 0; i < failures && wait < options_.retry_max; ++i) wait *= 2;
  return std::min(wait, options_.retry_max);
}

void EventSubscriber::schedule_round(std::chrono::milliseconds delay) {
  in_flight_.add();  // the wait counts, so that stop() outlives its handler
  timer_.expires_after(delay);
  timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || stopped_) {
      in_flight_.done();
      return;
    }
    const std::string url = advertise_url();
    if (url.empty()) return round_done(false);  // BMCs could not reach us: nothing to subscribe
    asio::post(pool_, [this, prefix = url + std::string(kRedfishEventsPath)] {
      std::vector<db::SubscriptionJob> due;
      try {
        due = store_.claim(options_.owner, options_.claim_batch, options_.lease);
      } catch (const std::exception& e) {
        log::warn("event subscriptions could not be claimed; retrying", {{"error", e.what()}});
      }
      if (due.empty()) return round_done(false);
      const bool full = static_cast<int>(due.size()) == options_.claim_batch;
      auto remaining = std::make_shared<std::atomic<int>>(static_cast<int>(due.size()));
      for (auto& job : due)
        asio::co_spawn(
            executor_, handle(std::move(job), prefix),
            [this, remaining, full](std::exception_ptr failure) {
              if (failure) {
                try {
                  std::rethrow_exception(failure);
                } catch (const std::exception& e) {
                  // Its lease hands it on to the next round.
                  log::warn("an event subscription failed unexpectedly", {{"error", e.what()}});
                }
              }
              if (--*remaining == 0) round_done(full);
            });
    });
  });
}

void EventSubscriber::round_done(bool more) {
  asio::post(executor_, [this, more] {
    if (!stopped_) schedule_round(more ? std::chrono::milliseconds(0) : options_.idle_wait);
    in_flight_.done();
  });
}

asio::awaitable<void> EventSubscriber::handle(db::SubscriptionJob job, std::string prefix) {
  const auto found = drivers_.find(job.driver);
  NodeDriver* driver = found == drivers_.end() ? nullptr : found->second;
  if (!driver) {
    auto record = [this, &job] {
      store_.failed(job.target.node_id, options_.owner, "unsupported",
                    "the " + job.driver + " driver has no pushed events",
                    options_.unsupported_recheck);
    };
    co_await on_pool(pool_, std::move(record));
    co_return;
  }
  if (job.retired || job.state == "removing") {
    co_await remove(job, *driver);
    co_return;
  }
  if (job.state == "active" && job.bmc_path && job.destination_prefix == prefix) {
    auto checking = driver->check_event_subscription(job.target, *job.bmc_path);
    const SubscriptionCheck check = co_await std::move(checking);
    if (check.error) {
      // Most likely the BMC is down for a while; it keeps the subscription meanwhile.
      auto record = [this, &job, &check] {
        store_.failed(job.target.node_id, options_.owner, "", message_of(check.error),
                      backoff(job.failures));
      };
      co_await on_pool(pool_, std::move(record));
      co_return;
    }
    // A BMC that hides the destination keeps it as given; one that shows another was pointed
    // elsewhere (by an administrator, or a reset that reused the id).
    if (check.state == SubscriptionState::present &&
        (!check.destination || check.destination->starts_with(prefix))) {
      auto record = [this, &job] {
        store_.checked(job.target.node_id, options_.owner, options_.check_every);
      };
      co_await on_pool(pool_, std::move(record));
      co_return;
    }
    log::info("a BMC no longer has this service's event subscription; subscribing again",
              {{"node", job.target.node_name}, {"subscription", *job.bmc_path}});
  }
  co_await subscribe(job, *driver, prefix);
}

asio::awaitable<void> EventSubscriber::subscribe(const db::SubscriptionJob& job, NodeDriver& driver,
                                                 const std::string& prefix) {
  EventSubscriptionRequest request;
  const std::string secret = new_secret();
  request.destination = prefix + secret;
  request.context = "ironhold " + job.target.node_id;
  request.ours_prefix = prefix;
  request.previous = job.bmc_path.value_or("");
  auto expect = [this, &job, &secret] { store_.expect_secret(job.target.node_id, secret); };
  co_await on_pool(pool_, std::move(expect));

  auto subscribing = driver.subscribe_events(job.target, std::move(request));
  const EventSubscriptionReport report = co_await std::move(subscribing);
  if (report.ok()) {
    auto record = [this, &job, &report, &prefix] {
      store_.subscribed(job.target.node_id, options_.owner, report.subscription, prefix,
                        options_.check_every);
    };
    co_await on_pool(pool_, std::move(record));
    log::info("subscribed to a BMC's events", {{"node", job.target.node_name},
                                               {"subscription", report.subscription},
                                               {"replaced", report.removed}});
    co_return;
  }
  const bool unsupported = report.error->code == DriverErrorCode::unsupported;
  auto record = [this, &job, &report, unsupported] {
    store_.failed(job.target.node_id, options_.owner, unsupported ? "unsupported" : "failing",
                  message_of(report.error),
                  unsupported ? options_.unsupported_recheck : backoff(job.failures));
  };
  co_await on_pool(pool_, std::move(record));
}

asio::awaitable<void> EventSubscriber::remove(const db::SubscriptionJob& job, NodeDriver& driver) {
  std::optional<DriverError> error;
  if (job.bmc_path) {
    auto removing = driver.unsubscribe_events(job.target, *job.bmc_path);
    const DriverOutcome outcome = co_await std::move(removing);
    error = outcome.error;
  }
  const bool give_up = error && job.failures + 1 >= options_.removal_attempts;
  if (give_up)
    log::warn("gave up removing a retired node's event subscription from its BMC",
              {{"node", job.target.node_name}, {"error", message_of(error)}});
  auto record = [this, &job, &error, give_up] {
    if (!error || give_up)
      store_.removed(job.target.node_id, options_.owner);
    else
      store_.failed(job.target.node_id, options_.owner, "", message_of(error),
                    backoff(job.failures));
  };
  co_await on_pool(pool_, std::move(record));
}

}  // namespace ironhold::events

#pragma once
// Keeps this service subscribed on every Redfish BMC that offers an EventService: in rounds, it
// claims due rows of event_subscriptions under a lease (so that several instances share the
// work and a dead one's claims pass on), and for each one subscribes (removing older
// subscriptions of ours first), reads an active subscription back to see the BMC still has it
// (subscribing again when it has not: a BMC that gave up delivering drops it), or removes it
// from a retired node's BMC. Each subscription posts to its own secret URL under the advertised
// address; nothing is subscribed while the service has none.
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "inventory/db/event_subscription_store.hpp"
#include "inventory/drivers/node_driver.hpp"
#include "inventory/util/in_flight.hpp"

namespace ironhold::events {

struct EventSubscriberOptions {
  std::string owner;  // this instance's name in the leases; a random one when empty
  std::chrono::milliseconds idle_wait{5000};  // between rounds when nothing more was due
  // How often an active subscription is read back from its BMC.
  std::chrono::seconds check_every{600};
  // A BMC without a usable EventService is asked again this often (firmware updates add one).
  std::chrono::seconds unsupported_recheck{86400};
  std::chrono::seconds retry_base{30};  // after a failure, doubling with each one
  std::chrono::seconds retry_max{3600};
  std::chrono::seconds lease{120};  // longer than a subscription's few requests take
  int claim_batch = 100;            // subscriptions handled at once
  // A retired node's subscription is given up after this many failed removals: its BMC then
  // posts to an address that answers 404, and most BMCs drop such a subscription.
  int removal_attempts = 10;
};

// The path under the advertised URL every subscription posts to, followed by its secret.
inline constexpr std::string_view kRedfishEventsPath = "/api/v1/redfish-events/";

class EventSubscriber {
 public:
  EventSubscriber(boost::asio::any_io_executor executor, boost::asio::thread_pool& pool,
                  db::EventSubscriptionStore& store, std::map<std::string, NodeDriver*> drivers,
                  EventSubscriberOptions options = {});
  ~EventSubscriber();
  EventSubscriber(const EventSubscriber&) = delete;
  EventSubscriber& operator=(const EventSubscriber&) = delete;

  // Where BMCs reach this service (--advertise-url); empty: nothing is subscribed.
  void set_advertise_url(std::string url);
  void start();
  // Stops the rounds and waits (up to `grace`) for the one under way. Never on an I/O thread.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(10));

 private:
  void schedule_round(std::chrono::milliseconds delay);
  void round_done(bool more);
  boost::asio::awaitable<void> handle(db::SubscriptionJob job, std::string prefix);
  boost::asio::awaitable<void> subscribe(const db::SubscriptionJob& job, NodeDriver& driver,
                                         const std::string& prefix);
  boost::asio::awaitable<void> remove(const db::SubscriptionJob& job, NodeDriver& driver);
  std::chrono::seconds backoff(int failures) const;
  std::string advertise_url() const;

  boost::asio::any_io_executor executor_;
  boost::asio::thread_pool& pool_;
  db::EventSubscriptionStore& store_;
  std::map<std::string, NodeDriver*> drivers_;
  EventSubscriberOptions options_;
  boost::asio::steady_timer timer_;
  mutable std::mutex url_mutex_;
  std::string advertise_url_;
  std::atomic<bool> stopped_{false};
  InFlight in_flight_;
};

}  // namespace ironhold::events

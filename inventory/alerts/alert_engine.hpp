#pragma once
// Runs the alerts: every `evaluate_every`, an evaluation pass on the blocking pool (one instance at
// a time across the fleet, by an advisory lock); every `deliver_every`, the due notifications of
// the outbox claimed under a lease and sent through the WebhookSender, signed, each marked
// delivered or scheduled again with backoff. Every instance runs one; a dead instance's claims
// pass on when their lease ends.
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "inventory/alerts/webhook_sender.hpp"
#include "inventory/db/alert_evaluation.hpp"
#include "inventory/db/alert_outbox.hpp"
#include "inventory/util/in_flight.hpp"

namespace ironhold::alerts {

struct AlertEngineOptions {
  std::chrono::milliseconds evaluate_every{5000};
  std::chrono::milliseconds deliver_every{1000};
  int deliveries_per_round = 20;
  std::chrono::seconds lease{60};
  std::chrono::milliseconds retry_base{5000};  // the first retry's wait, doubling to 10 minutes
  db::AlertPolicy policy;
};

class AlertEngine {
 public:
  // `owner` names this instance in the outbox's leases.
  AlertEngine(boost::asio::any_io_executor executor, boost::asio::thread_pool& pool,
              db::Database& db, const crypto::SecretBox& box, WebhookSender& sender,
              std::string owner, AlertEngineOptions options = {});
  ~AlertEngine();
  AlertEngine(const AlertEngine&) = delete;
  AlertEngine& operator=(const AlertEngine&) = delete;

  // Where receivers are told this service is (links in notifications).
  void set_external_url(std::string url);
  void start();
  // Stops both timers and waits (up to `grace`) for a pass or a round under way. Never on an I/O
  // thread.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(10));

 private:
  void schedule_evaluation(std::chrono::milliseconds delay);
  void schedule_delivery(std::chrono::milliseconds delay);
  // `remaining` counts the round's deliveries still out; the last one to finish starts the next
  // round, at once when `more_due`.
  void send(db::Delivery delivery, std::shared_ptr<std::atomic<int>> remaining, bool more_due);
  void round_done(bool more);
  std::string external_url() const;

  boost::asio::any_io_executor executor_;
  boost::asio::thread_pool& pool_;
  db::Database& db_;
  db::AlertOutbox outbox_;
  WebhookSender& sender_;
  std::string owner_;
  AlertEngineOptions options_;
  boost::asio::steady_timer evaluation_timer_, delivery_timer_;
  mutable std::mutex url_mutex_;
  std::string external_url_;
  std::atomic<bool> stopped_{false};
  InFlight in_flight_;
};

}  // namespace ironhold::alerts

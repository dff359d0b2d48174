#include "inventory/alerts/alert_engine.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>

#include "inventory/alerts/alertmanager_payload.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::alerts {

AlertEngine::AlertEngine(boost::asio::any_io_executor executor, boost::asio::thread_pool& pool,
                         db::Database& db, const crypto::SecretBox& box, WebhookSender& sender,
                         std::string owner, AlertEngineOptions options)
    : executor_(executor),
      pool_(pool),
      db_(db),
      outbox_(db, box, options.retry_base),
      sender_(sender),
      owner_(std::move(owner)),
      options_(options),
      evaluation_timer_(executor),
      delivery_timer_(executor) {}

AlertEngine::~AlertEngine() {
  stop();
}

void AlertEngine::set_external_url(std::string url) {
  std::lock_guard lock(url_mutex_);
  external_url_ = std::move(url);
}

std::string AlertEngine::external_url() const {
  std::lock_guard lock(url_mutex_);
  return external_url_;
}

void AlertEngine::start() {
  schedule_evaluation(std::chrono::milliseconds(0));
  schedule_delivery(options_.deliver_every);
}

void AlertEngine::stop(std::chrono::milliseconds grace) {
  if (stopped_.exchange(true)) return;
  boost::asio::post(executor_, [this] {
    evaluation_timer_.cancel();
    delivery_timer_.cancel();
  });
  in_flight_.wait_idle(grace);
}

void AlertEngine::schedule_evaluation(std::chrono::milliseconds delay) {
  in_flight_.add();  // the wait counts, so that stop() outlives its handler
  evaluation_timer_.expires_after(delay);
  evaluation_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || stopped_) {
      in_flight_.done();
      return;
    }
    boost::asio::post(pool_, [this] {
      try {
        const db::AlertPass pass = db::evaluate_alerts(db_, options_.policy);
        if (pass.fired || pass.resolved)
          log::info("alerts evaluated", {{"fired", pass.fired},
                                         {"resolved", pass.resolved},
                                         {"changed", pass.updated},
                                         {"notifications", pass.notifications}});
      } catch (const std::exception& e) {
        log::warn("alerts could not be evaluated; retrying", {{"error", e.what()}});
      }
      boost::asio::post(executor_, [this] {
        if (!stopped_) schedule_evaluation(options_.evaluate_every);
        in_flight_.done();
      });
    });
  });
}

void AlertEngine::schedule_delivery(std::chrono::milliseconds delay) {
  in_flight_.add();
  delivery_timer_.expires_after(delay);
  delivery_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || stopped_) {
      in_flight_.done();
      return;
    }
    boost::asio::post(pool_, [this] {
      std::vector<db::Delivery> due;
      try {
        due = outbox_.claim(owner_, options_.deliveries_per_round, options_.lease);
      } catch (const std::exception& e) {
        log::warn("alert notifications could not be claimed; retrying", {{"error", e.what()}});
      }
      if (due.empty()) return round_done(false);
      // A full round suggests more are due: the next one starts at once.
      const bool more_due = static_cast<int>(due.size()) == options_.deliveries_per_round;
      auto remaining = std::make_shared<std::atomic<int>>(static_cast<int>(due.size()));
      for (auto& d : due) send(std::move(d), remaining, more_due);
    });
  });
}

void AlertEngine::send(db::Delivery delivery, std::shared_ptr<std::atomic<int>> remaining,
                       bool more_due) {
  std::string body = alertmanager_body(delivery, external_url());
  std::vector<std::pair<std::string, std::string>> headers = {
      {"Content-Type", "application/json"},
      {"User-Agent", "Ironhold-Alerts/1"},
      {"X-Ironhold-Signature", signature_header(delivery.secret, body)}};
  const long long id = delivery.id;
  const std::string receiver = delivery.receiver_name;
  boost::asio::co_spawn(
      executor_, sender_.post(delivery.url, std::move(body), std::move(headers)),
      [this, id, receiver, remaining, more_due](std::exception_ptr failure,
                                                WebhookOutcome outcome) {
        if (failure) outcome = {false, "the sender failed"};
        boost::asio::post(pool_, [this, id, receiver, remaining, more_due, outcome] {
          try {
            if (outcome.delivered)
              outbox_.delivered(id);
            else {
              outbox_.failed(id, outcome.error);
              log::warn("an alert notification was not delivered; it is tried again",
                        {{"receiver", receiver}, {"error", outcome.error}});
            }
          } catch (const std::exception& e) {
            log::warn("an alert delivery could not be recorded; its lease hands it on",
                      {{"error", e.what()}});
          }
          if (--*remaining == 0) round_done(more_due);
        });
      });
}

void AlertEngine::round_done(bool more) {
  boost::asio::post(executor_, [this, more] {
    if (!stopped_) schedule_delivery(more ? std::chrono::milliseconds(0) : options_.deliver_every);
    in_flight_.done();
  });
}

}  // namespace ironhold::alerts

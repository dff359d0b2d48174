#pragma once
// The fleet's side of the simulated EventService: POSTs each Event document a BmcState hands on
// (events.hpp: EventDelivery) to its subscription's destination — plain HTTP, or TLS without
// certificate verification (what BMCs do by default) — with the subscription's HttpHeaders. A
// subscription's events go one at a time, in order; a failed attempt (no connection, no answer
// within the timeout, a non-2xx answer) is retried DeliveryRetryAttempts times
// DeliveryRetryIntervalSeconds apart, then given up (BmcState applies the DeliveryRetryPolicy).
// Before each attempt the BMC is asked where the subscription's events go now, so a deleted or
// suspended subscription gets nothing more. Also the timers after which a reset's power
// transition has settled (PowerSettle). All of it runs on the fleet's io_context (one thread),
// never under a BMC's lock; what a coroutine needs lives in a shared state it holds.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>

#include "sim/redfish/events.hpp"

namespace ironhold::sim::redfish {

class BmcState;

struct EventSenderOptions {
  // The wait between a failed delivery and its retry; nothing: each EventService's
  // DeliveryRetryIntervalSeconds (60 s in our mockups). Tests and demos make it short.
  std::optional<std::chrono::milliseconds> retry_interval;
  std::chrono::milliseconds timeout{5000};  // one attempt: connect, TLS, send, the answer
  std::size_t max_queued = 256;             // events waiting per subscription; more are dropped
};

struct EventSenderState;  // event_sender.cpp

class EventSender {
 public:
  // `bmc(i)`: the fleet's BMC i.
  EventSender(boost::asio::io_context& io, EventSenderOptions options,
              std::function<BmcState&(unsigned)> bmc);
  ~EventSender();
  EventSender(const EventSender&) = delete;
  EventSender& operator=(const EventSender&) = delete;

  void send(EventDelivery delivery);      // returns at once (callable under BmcState's lock)
  void settle_power(PowerSettle settle);  // same

 private:
  std::shared_ptr<EventSenderState> state_;
};

}  // namespace ironhold::sim::redfish

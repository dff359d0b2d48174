#pragma once
// One subscriber of the change feed (an open GET /api/v1/stream): the queue of live events the feed
// has fanned out to it and that it has not taken yet. The queue is bounded: a subscriber that does
// not keep up is dropped from live delivery, its queue emptied, and catches up from the database.
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/db/change_store.hpp"

namespace ironhold::stream {

// A change as the stream sends it: rendered once per process and shared by every subscriber.
struct ChangeEvent {
  db::ChangeRow row;
  // The resource's JSON as its GET answers it; null when the resource is gone (a node purged
  // since): there is nothing to send, and the event that says it is gone is further on.
  std::shared_ptr<const std::string> data;
};
using ChangeEventPtr = std::shared_ptr<const ChangeEvent>;

class Subscription {
 public:
  // Which changes it wants (by kind, "node.updated", and project); the others are not queued.
  using Wants = std::function<bool(const db::ChangeRow& change)>;
  // `wake` is called, from the feed's thread, after events were queued or the state changed.
  Subscription(Wants wants, std::function<void()> wake);

  // The events queued since the last call, in delivery order.
  std::vector<ChangeEventPtr> take();
  // Dropped from live delivery: its queue outgrew the feed's bound. Subscribe again.
  bool dropped() const;
  // The feed stopped (the service is shutting down): nothing more comes.
  bool closed() const;

  struct Offered {
    bool queued = false;   // at least one event was wanted
    bool dropped = false;  // the queue outgrew `max` and was emptied
  };
  // For the feed: queues the wanted events of a batch.
  Offered offer(const std::vector<ChangeEventPtr>& events, std::size_t max);
  // For the feed: nothing more comes.
  void close();
  void wake() const;

 private:
  const Wants wants_;
  const std::function<void()> wake_;
  mutable std::mutex mutex_;
  std::vector<ChangeEventPtr> queue_;
  bool dropped_ = false;
  bool closed_ = false;
};

}  // namespace ironhold::stream

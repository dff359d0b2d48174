#pragma once
// The change feed, one per service: it reads the changes table (migrations/0010_change_stream.sql)
// as changes become final and fans them out, rendered once, to its subscribers (the open streams
// of GET /api/v1/stream).
//
// It has a PostgreSQL connection of its own that LISTENs on ironhold_changes, so each commit's
// NOTIFY wakes it; it also reads every few seconds, so a lost notification or a lost connection
// delays events but never loses them (reads go from a position in the table, and a reconnection
// reads everything after it). Changes are delivered in (xid, id) order up to the watermark: see
// db::ChangeListener::Window.
//
// Its frontier is the position before which every change has been fanned out. A subscriber
// registered at frontier F receives live every later change it wants; the changes before F that
// it has not seen (after a reconnection) it reads with between(), in pages, at its own pace.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "inventory/db/change_listener.hpp"
#include "inventory/db/change_store.hpp"
#include "inventory/stream/subscription.hpp"
#include "inventory/util/wake_fd.hpp"

namespace ironhold::stream {

struct ChangeFeedOptions {
  // The read when no NOTIFY came: the fallback that makes a lost notification harmless.
  std::chrono::milliseconds poll_interval{3000};
  // The first read again when committed changes wait behind an older transaction, doubling up to
  // poll_interval while they still wait.
  std::chrono::milliseconds held_back_retry{20};
  std::chrono::milliseconds reconnect_delay{1000};
  std::size_t max_queue = 10'000;  // live events held for one subscriber before it is dropped
  int page_size = 500;             // changes read, rendered and fanned out at a time
  std::size_t cache_size = 2048;   // rendered changes kept for catch-ups
};

class ChangeFeed {
 public:
  // The data of a change (the resource's JSON); nullopt when the resource is gone. Called on the
  // feed's thread and on the callers of between(), so it must be thread-safe. Throws
  // Error(unavailable) when the database cannot be reached (the read is retried).
  using Render = std::function<std::optional<std::string>(const db::ChangeRow&)>;

  ChangeFeed(db::ChangeStore& store, std::string database_url, Render render,
             ChangeFeedOptions options = {});
  ~ChangeFeed();
  ChangeFeed(const ChangeFeed&) = delete;
  ChangeFeed& operator=(const ChangeFeed&) = delete;

  struct Registration {
    std::shared_ptr<Subscription> subscription;
    db::ChangePosition frontier;  // live delivery starts here
  };
  // Registers a subscriber. The feed starts with its first subscriber (an instance nobody streams
  // from reads nothing). Blocking: call off the I/O threads. After stop() the subscription is
  // closed at once.
  Registration subscribe(Subscription::Wants wants, std::function<void()> wake);
  void unsubscribe(const std::shared_ptr<Subscription>& subscription);

  // The changes after `after` and before `before`, rendered (recent ones from the cache), at most
  // `limit`: a subscriber's catch-up. Blocking. Throws Error(unavailable).
  std::vector<ChangeEventPtr> between(db::ChangePosition after, db::ChangePosition before,
                                      int limit);
  db::ChangeStore& store() noexcept { return store_; }

  // Ends the feed's thread and closes every subscription. Idempotent.
  void stop();

 private:
  void run();
  // Reads and fans out every change that became final; true when more wait behind an older
  // transaction.
  bool drain(db::ChangeListener& listener);
  std::vector<ChangeEventPtr> render_all(const std::vector<db::ChangeRow>& rows);
  void publish(const std::vector<ChangeEventPtr>& events, db::ChangePosition frontier);
  ChangeEventPtr cached(std::int64_t id) const;
  void remember(const ChangeEventPtr& event);

  db::ChangeStore& store_;
  const std::string database_url_;
  const Render render_;
  const ChangeFeedOptions options_;
  WakeFd wake_;

  std::mutex mutex_;  // the frontier, the subscribers and the feed's state
  db::ChangePosition frontier_;
  std::vector<std::shared_ptr<Subscription>> subscribers_;
  bool started_ = false;
  bool stopped_ = false;
  std::atomic<bool> stopping_{false};
  std::thread thread_;

  mutable std::mutex cache_mutex_;
  std::unordered_map<std::int64_t, ChangeEventPtr> cache_;
  std::deque<std::int64_t> cache_order_;  // oldest first, for eviction
};

}  // namespace ironhold::stream

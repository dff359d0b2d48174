#include "inventory/stream/change_feed.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::stream {

ChangeFeed::ChangeFeed(db::ChangeStore& store, std::string database_url, Render render,
                       ChangeFeedOptions options)
    : store_(store),
      database_url_(std::move(database_url)),
      render_(std::move(render)),
      options_(options) {}

ChangeFeed::~ChangeFeed() {
  stop();
}

ChangeFeed::Registration ChangeFeed::subscribe(Subscription::Wants wants,
                                               std::function<void()> wake) {
  auto subscription = std::make_shared<Subscription>(std::move(wants), std::move(wake));
  std::lock_guard lock(mutex_);
  if (stopped_) {
    subscription->close();
    return {subscription, frontier_};
  }
  if (!started_) {
    // Everything below today's watermark counts as fanned out before the feed began: a
    // subscriber that missed some of it reads it with between().
    frontier_ = {store_.watermark(), 0};
    started_ = true;
    thread_ = std::thread([this] { run(); });
  }
  subscribers_.push_back(subscription);
  return {subscription, frontier_};
}

void ChangeFeed::unsubscribe(const std::shared_ptr<Subscription>& subscription) {
  std::lock_guard lock(mutex_);
  std::erase(subscribers_, subscription);
}

std::vector<ChangeEventPtr> ChangeFeed::between(db::ChangePosition after, db::ChangePosition before,
                                                int limit) {
  if (stopping_)
    throw Error(ErrorKind::unavailable, "the change stream is stopping: the service shuts down");
  return render_all(store_.between(after, before, limit));
}

void ChangeFeed::stop() {
  std::vector<std::shared_ptr<Subscription>> subscribers;
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    subscribers.swap(subscribers_);
  }
  stopping_ = true;
  wake_.wake();
  if (thread_.joinable()) thread_.join();
  for (auto& s : subscribers) s->close();
}

void ChangeFeed::run() {
  db::ChangeListener listener(database_url_);
  bool failing = false;
  auto retry = options_.held_back_retry;
  while (!stopping_) {
    try {
      if (!listener.connected()) {
        // LISTEN before reading: a change committed in between still wakes the wait below.
        listener.connect();
        if (failing) log::info("the change stream reaches PostgreSQL again; catching up");
        failing = false;
      }
      const bool held_back = drain(listener);
      std::chrono::milliseconds wait = options_.poll_interval;
      if (held_back) {
        wait = retry;
        retry = std::min(retry * 2, options_.poll_interval);
      } else {
        retry = options_.held_back_retry;
      }
      listener.wait(wake_.fd(), wait);
      wake_.drain();
    } catch (const std::exception& e) {
      if (!failing)
        log::warn("the change stream lost PostgreSQL; events wait until it is back",
                  {{"error", e.what()}});
      failing = true;
      listener.disconnect();
      wake_.wait(options_.reconnect_delay);
    }
  }
}

bool ChangeFeed::drain(db::ChangeListener& listener) {
  db::ChangePosition from;
  {
    std::lock_guard lock(mutex_);
    from = frontier_;
  }
  while (!stopping_) {
    const auto window = listener.read(from, options_.page_size);
    const auto events = render_all(window.rows);
    db::ChangePosition next = from;
    if (!window.rows.empty()) next = db::just_after(window.rows.back().position);
    // Below the watermark nothing can appear any more: the frontier moves up to it.
    if (!window.full) next = std::max(next, db::ChangePosition{window.watermark, 0});
    publish(events, next);
    from = next;
    if (!window.full) return window.held_back;
  }
  return false;
}

std::vector<ChangeEventPtr> ChangeFeed::render_all(const std::vector<db::ChangeRow>& rows) {
  // An event carries the resource as it is now, so a resource changed several times in a batch
  // is read once.
  std::map<std::pair<std::string, std::string>, std::shared_ptr<const std::string>> rendered;
  std::vector<ChangeEventPtr> events;
  events.reserve(rows.size());
  for (const auto& row : rows) {
    if (auto hit = cached(row.position.id)) {
      events.push_back(std::move(hit));
      continue;
    }
    auto key = std::make_pair(row.kind, row.resource_id);
    auto it = rendered.find(key);
    if (it == rendered.end()) {
      std::optional<std::string> data = render_(row);
      it = rendered
               .emplace(std::move(key),
                        data ? std::make_shared<const std::string>(std::move(*data)) : nullptr)
               .first;
    }
    auto event = std::make_shared<const ChangeEvent>(ChangeEvent{row, it->second});
    remember(event);
    events.push_back(std::move(event));
  }
  return events;
}

void ChangeFeed::publish(const std::vector<ChangeEventPtr>& events, db::ChangePosition frontier) {
  std::vector<std::shared_ptr<Subscription>> woken;
  std::size_t dropped = 0;
  {
    std::lock_guard lock(mutex_);
    if (!events.empty()) {
      for (auto it = subscribers_.begin(); it != subscribers_.end();) {
        const auto offered = (*it)->offer(events, options_.max_queue);
        if (offered.queued || offered.dropped) woken.push_back(*it);
        if (offered.dropped) {
          ++dropped;
          it = subscribers_.erase(it);
        } else {
          ++it;
        }
      }
    }
    // Registration reads the frontier under the same lock: a subscriber gets each change either
    // live (after this) or from between() (before it), never both and never neither.
    frontier_ = std::max(frontier_, frontier);
  }
  if (dropped)
    log::info("change stream subscribers fell behind; they catch up from the database",
              {{"subscribers", dropped}, {"max_queue", options_.max_queue}});
  for (auto& s : woken) s->wake();
}

ChangeEventPtr ChangeFeed::cached(std::int64_t id) const {
  std::lock_guard lock(cache_mutex_);
  const auto it = cache_.find(id);
  return it == cache_.end() ? nullptr : it->second;
}

void ChangeFeed::remember(const ChangeEventPtr& event) {
  if (options_.cache_size == 0) return;
  std::lock_guard lock(cache_mutex_);
  if (!cache_.emplace(event->row.position.id, event).second) return;
  cache_order_.push_back(event->row.position.id);
  while (cache_order_.size() > options_.cache_size) {
    cache_.erase(cache_order_.front());
    cache_order_.pop_front();
  }
}

}  // namespace ironhold::stream

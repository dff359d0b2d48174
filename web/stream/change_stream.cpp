#include "web/stream/change_stream.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <optional>

#include "inventory/util/log.hpp"
#include "web/stream/sse.hpp"

namespace ironhold::web {
namespace {

using stream::ChangeEventPtr;
using stream::ChangeFeed;
using stream::Subscription;

constexpr auto stream_wait_token = asio::as_tuple(asio::use_awaitable);

// The timer a stream sleeps on between events, on its connection's strand. The feed's thread
// wakes it by posting a cancel to that strand; it is shared so that a wake-up arriving after the
// stream ended finds it gone rather than freed.
struct StreamWaiter {
  explicit StreamWaiter(const asio::any_io_executor& executor) : timer(executor) {}
  asio::steady_timer timer;
};

std::function<void()> wake_up(const std::shared_ptr<StreamWaiter>& waiter,
                              asio::any_io_executor executor) {
  return [weak = std::weak_ptr<StreamWaiter>(waiter), executor] {
    asio::post(executor, [weak] {
      if (auto w = weak.lock()) w->timer.cancel();
    });
  };
}

Subscription::Wants wants_of(const StreamRequest& request) {
  return [request](const db::ChangeRow& change) { return request.wants(change); };
}

// Where a new stream starts.
struct Opening {
  ChangeFeed::Registration registration;
  db::ChangePosition cursor;  // the client has everything up to here
  bool catch_up = false;      // what lies between the cursor and the frontier comes first
  std::string first_piece;
};

// Blocking: runs on the pool.
Opening open_subscription(ChangeFeed& feed, const StreamRequest& request,
                          std::function<void()> wake) {
  Opening o;
  std::optional<db::ChangePosition> resume;
  if (request.last_event_id) resume = feed.store().position_of(*request.last_event_id);
  o.registration = feed.subscribe(wants_of(request), std::move(wake));
  if (resume) {
    o.cursor = *resume;
    o.catch_up = true;
    o.first_piece = sse::comment("resuming after " + std::to_string(*request.last_event_id));
    return o;
  }
  // Live from the frontier on. The last change before it is where this client stands.
  std::optional<db::ChangeRow> last;
  try {
    last = feed.store().last_before(o.registration.frontier);
  } catch (...) {
    feed.unsubscribe(o.registration.subscription);
    throw;
  }
  if (last) o.cursor = last->position;
  const std::string last_id = last ? std::to_string(last->position.id) : std::string();
  if (request.last_event_id) {
    const nlohmann::json why = {
        {"reason", "event " + std::to_string(*request.last_event_id) +
                       " is no longer kept (changes are kept 24 hours) or was never sent by "
                       "this service: reload what you show; live changes follow"},
        {"last_event_id", std::to_string(*request.last_event_id)}};
    o.first_piece = sse::event(last_id, "stream.reset", why.dump());
  } else {
    o.first_piece = sse::id_only(last_id) + sse::comment("connected");
  }
  return o;
}

class ChangeStreamBody final : public BodySource {
 public:
  ChangeStreamBody(Services& services, std::shared_ptr<ChangeFeed> feed, StreamRequest request,
                   std::shared_ptr<StreamWaiter> waiter, std::function<void()> wake,
                   Opening opening, ChangeStreamOptions options)
      : services_(services),
        feed_(std::move(feed)),
        request_(std::move(request)),
        waiter_(std::move(waiter)),
        wake_(std::move(wake)),
        subscription_(std::move(opening.registration.subscription)),
        cursor_(opening.cursor),
        first_piece_(std::move(opening.first_piece)),
        options_(options) {
    if (opening.catch_up) catch_up_to_ = opening.registration.frontier;
  }

  ~ChangeStreamBody() override { feed_->unsubscribe(subscription_); }

  asio::awaitable<std::string> next() override;
  bool failed() const override { return failed_; }
  void finish() override {
    finishing_ = true;
    waiter_->timer.cancel();
  }

 private:
  asio::awaitable<std::string> catch_up();
  asio::awaitable<void> subscribe_again();
  std::string frames(const std::vector<ChangeEventPtr>& events);

  Services& services_;
  std::shared_ptr<ChangeFeed> feed_;
  const StreamRequest request_;
  std::shared_ptr<StreamWaiter> waiter_;
  std::function<void()> wake_;
  std::shared_ptr<Subscription> subscription_;
  db::ChangePosition cursor_;                      // the last change the client has
  std::optional<db::ChangePosition> catch_up_to_;  // set while reading from the database
  std::string first_piece_;
  bool opened_ = false;
  bool finishing_ = false;
  bool failed_ = false;
  ChangeStreamOptions options_;
};

asio::awaitable<std::string> ChangeStreamBody::next() {
  if (!opened_) {
    opened_ = true;
    co_return std::move(first_piece_);
  }
  while (!finishing_ && !failed_) {
    if (catch_up_to_) {
      auto reading = catch_up();
      std::string piece = co_await std::move(reading);
      if (!piece.empty()) co_return piece;
      continue;
    }
    if (subscription_->dropped()) {
      auto subscribing = subscribe_again();
      co_await std::move(subscribing);
      continue;
    }
    std::string piece = frames(subscription_->take());
    if (!piece.empty()) co_return piece;
    if (subscription_->closed()) break;  // the service is stopping
    waiter_->timer.expires_after(options_.keep_alive);
    auto waiting = waiter_->timer.async_wait(stream_wait_token);
    auto [ec] = co_await std::move(waiting);
    if (!ec) co_return sse::comment("keep-alive");
  }
  co_return std::string();  // the end of the body; after a failure the server cuts it short
}

asio::awaitable<std::string> ChangeStreamBody::catch_up() {
  ChangeFeed* feed = feed_.get();
  const db::ChangePosition after = cursor_, before = *catch_up_to_;
  const int limit = options_.catch_up_page;
  auto read = [feed, after, before, limit]() -> std::optional<std::vector<ChangeEventPtr>> {
    try {
      return feed->between(after, before, limit);
    } catch (const std::exception& e) {
      log::warn("a change stream could not catch up; the client reconnects and resumes",
                {{"error", e.what()}});
      return std::nullopt;
    }
  };
  auto reading = services_.blocking(read);
  const std::optional<std::vector<ChangeEventPtr>> page = co_await std::move(reading);
  if (!page) {
    failed_ = true;
    co_return std::string();
  }
  if (static_cast<int>(page->size()) < limit) catch_up_to_.reset();
  co_return frames(*page);
}

// Dropped for not keeping up: what it missed is in the database, read at its own pace from here.
asio::awaitable<void> ChangeStreamBody::subscribe_again() {
  feed_->unsubscribe(subscription_);
  ChangeFeed* feed = feed_.get();
  auto work = [feed, wants = wants_of(request_),
               wake = wake_]() -> std::optional<ChangeFeed::Registration> {
    try {
      return feed->subscribe(wants, wake);
    } catch (const std::exception& e) {
      log::warn("a change stream could not subscribe again; the client reconnects and resumes",
                {{"error", e.what()}});
      return std::nullopt;
    }
  };
  auto subscribing = services_.blocking(work);
  const std::optional<ChangeFeed::Registration> registration = co_await std::move(subscribing);
  if (!registration) {
    failed_ = true;
    co_return;
  }
  subscription_ = registration->subscription;
  catch_up_to_ = registration->frontier;
}

std::string ChangeStreamBody::frames(const std::vector<ChangeEventPtr>& events) {
  std::string out;
  for (const auto& e : events) {
    // The catch-up and the live events meet here; and an instance further ahead may have sent
    // the client some of these already.
    if (e->row.position <= cursor_) continue;
    cursor_ = e->row.position;
    if (!e->data || !request_.wants(e->row)) continue;
    out += sse::event(std::to_string(e->row.position.id), e->row.kind, *e->data);
  }
  return out;
}

}  // namespace

asio::awaitable<std::shared_ptr<BodySource>> open_change_stream(Services& services,
                                                                std::shared_ptr<ChangeFeed> feed,
                                                                StreamRequest request,
                                                                ChangeStreamOptions options) {
  const asio::any_io_executor executor = co_await asio::this_coro::executor;
  auto waiter = std::make_shared<StreamWaiter>(executor);
  auto wake = wake_up(waiter, executor);
  ChangeFeed* f = feed.get();
  auto work = [f, request, wake] { return open_subscription(*f, request, wake); };
  auto opening = services.blocking(work);
  Opening opened = co_await std::move(opening);
  co_return std::make_shared<ChangeStreamBody>(services, std::move(feed), std::move(request),
                                               std::move(waiter), std::move(wake),
                                               std::move(opened), options);
}

}  // namespace ironhold::web

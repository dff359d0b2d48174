#include "bmc/http/per_host_limiter.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/execution/context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/query.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "bmc/http/abandoned_waits.hpp"
#include "bmc/http/resumer.hpp"

namespace ironhold::bmc::http {
namespace asio = boost::asio;

namespace {

using http_detail::make_resumer;
using http_detail::Resumer;

struct Waiter {
  std::unique_ptr<Resumer> resumer;
  asio::any_io_executor executor;
  const asio::execution_context* context = nullptr;  // the executor's, to drop at its shutdown
};

// Resumes a waiter on its own executor, never inline under the limiter's lock.
void wake(Waiter waiter) {
  auto resume = [resumer = std::move(waiter.resumer)] { resumer->resume(); };
  asio::post(waiter.executor, std::move(resume));
}

}  // namespace

// A mutex, not a strand: acquire and release come from any thread and hold it for microseconds.
struct PerHostLimiter::State {
  struct Host {
    std::size_t in_flight = 0;
    std::deque<Waiter> waiters;
  };

  std::size_t limit_of(const std::string& host) const {
    const auto it = limits.find(host);
    return it == limits.end() ? default_limit : it->second;
  }

  // Queued waiters hold their coroutines and those coroutines hold this state: if their context
  // shuts down first, nothing would free either. So the state registers with each context it
  // has queued a waiter from, and drops that context's waiters when it shuts down.
  void watch(const asio::any_io_executor& executor, const asio::execution_context* context,
             const std::shared_ptr<State>& self) {
    if (watched.contains(context)) return;
    auto drop = [weak = std::weak_ptr<State>(self), context] {
      if (auto alive = weak.lock()) alive->drop_waiters_of(context);
    };
    watched.emplace(context, AbandonedWaits::of(executor).add(std::move(drop)));
  }

  void drop_waiters_of(const asio::execution_context* context) {
    // Destroyed outside the lock: a frame going away may release a permit, which takes it.
    std::vector<Waiter> orphans;
    {
      std::lock_guard lock(mutex);
      for (auto& [host, h] : hosts) {
        std::erase_if(h.waiters, [&](Waiter& waiter) {
          if (waiter.context != context) return false;
          orphans.push_back(std::move(waiter));
          return true;
        });
      }
    }
    orphans.clear();
  }

  mutable std::mutex mutex;
  std::size_t default_limit = 1;
  std::map<std::string, std::size_t> limits;
  std::map<std::string, Host> hosts;  // only hosts with requests in flight or waiting
  std::map<const asio::execution_context*, AbandonedWaits::Registration> watched;
};

PerHostLimiter::Permit::Permit(std::shared_ptr<State> state, std::string host)
    : state_(std::move(state)), host_(std::move(host)) {}

PerHostLimiter::Permit::Permit(Permit&& other) noexcept
    : state_(std::move(other.state_)), host_(std::move(other.host_)) {}

PerHostLimiter::Permit& PerHostLimiter::Permit::operator=(Permit&& other) noexcept {
  if (this != &other) {
    release();
    state_ = std::move(other.state_);
    host_ = std::move(other.host_);
  }
  return *this;
}

void PerHostLimiter::Permit::release() {
  if (!state_) return;
  std::optional<Waiter> next;
  {
    std::lock_guard lock(state_->mutex);
    auto it = state_->hosts.find(host_);
    if (it != state_->hosts.end()) {
      auto& host = it->second;
      if (!host.waiters.empty()) {
        // The slot passes to the oldest waiter: in_flight stays, and no newcomer can overtake.
        next.emplace(std::move(host.waiters.front()));
        host.waiters.pop_front();
      } else if (--host.in_flight == 0) {
        state_->hosts.erase(it);
      }
    }
  }
  state_.reset();
  if (next) wake(std::move(*next));
}

PerHostLimiter::PerHostLimiter(std::size_t default_limit) : state_(std::make_shared<State>()) {
  state_->default_limit = default_limit == 0 ? 1 : default_limit;
}

PerHostLimiter::~PerHostLimiter() {
  // A waiter's suspended coroutine holds the state (its frame does) while the state holds the
  // waiter: a cycle nothing else breaks, which leaked every request still queued at shutdown.
  // Destroying the waiters destroys those frames; outside the lock, because a frame going away may
  // release a permit, which takes it.
  std::vector<Waiter> orphans;
  {
    std::lock_guard lock(state_->mutex);
    for (auto& [host, h] : state_->hosts) {
      for (auto& waiter : h.waiters) orphans.push_back(std::move(waiter));
      h.waiters.clear();
    }
  }
  orphans.clear();
}

void PerHostLimiter::set_limit(const std::string& host, std::size_t limit) {
  std::deque<Waiter> admitted;
  {
    std::lock_guard lock(state_->mutex);
    state_->limits[host] = limit == 0 ? 1 : limit;
    auto it = state_->hosts.find(host);
    if (it == state_->hosts.end()) return;
    auto& h = it->second;
    while (!h.waiters.empty() && h.in_flight < state_->limits[host]) {
      ++h.in_flight;
      admitted.push_back(std::move(h.waiters.front()));
      h.waiters.pop_front();
    }
  }
  for (auto& waiter : admitted) wake(std::move(waiter));
}

asio::awaitable<PerHostLimiter::Permit> PerHostLimiter::acquire(std::string host) {
  asio::any_io_executor executor = co_await asio::this_coro::executor;
  std::shared_ptr<State> state = state_;
  // The check and the enqueue happen under one lock inside the initiation, so a release between
  // them cannot be missed. Named, not written in the co_await (GCC 12 coroutine temporaries).
  auto initiate = [state, host, executor](auto handler) {
    const asio::execution_context* context = &asio::query(executor, asio::execution::context);
    Waiter waiter{make_resumer(std::move(handler)), executor, context};
    {
      std::lock_guard lock(state->mutex);
      auto& h = state->hosts[host];
      if (!h.waiters.empty() || h.in_flight >= state->limit_of(host)) {
        state->watch(executor, context, state);
        h.waiters.push_back(std::move(waiter));
        return;
      }
      ++h.in_flight;
    }
    wake(std::move(waiter));
  };
  co_await asio::async_initiate<const asio::use_awaitable_t<>, void()>(initiate,
                                                                       asio::use_awaitable);
  co_return Permit(std::move(state), std::move(host));
}

std::size_t PerHostLimiter::in_flight(const std::string& host) const {
  std::lock_guard lock(state_->mutex);
  const auto it = state_->hosts.find(host);
  return it == state_->hosts.end() ? 0 : it->second.in_flight;
}

std::size_t PerHostLimiter::waiting(const std::string& host) const {
  std::lock_guard lock(state_->mutex);
  const auto it = state_->hosts.find(host);
  return it == state_->hosts.end() ? 0 : it->second.waiters.size();
}

}  // namespace ironhold::bmc::http

#pragma once
// An asynchronous semaphore per host: at most `limit` requests in flight to one BMC (default 1:
// BMCs are small and many of them serve one request at a time badly or not at all). Waiters are
// served first come, first served; a released slot is handed straight to the oldest waiter.
#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <memory>
#include <string>

namespace ironhold::bmc::http {

class PerHostLimiter {
  struct State;

 public:
  // Holds one slot of a host until released or destroyed.
  class Permit {
   public:
    Permit() = default;
    Permit(std::shared_ptr<State> state, std::string host);
    Permit(Permit&& other) noexcept;
    Permit& operator=(Permit&& other) noexcept;
    Permit(const Permit&) = delete;
    Permit& operator=(const Permit&) = delete;
    ~Permit() { release(); }
    void release();

   private:
    std::shared_ptr<State> state_;
    std::string host_;
  };

  explicit PerHostLimiter(std::size_t default_limit = 1);
  // Waiters still queued are never served: their coroutines are destroyed without resuming.
  ~PerHostLimiter();
  PerHostLimiter(const PerHostLimiter&) = delete;
  PerHostLimiter& operator=(const PerHostLimiter&) = delete;

  // A host's own limit (0 is taken as 1); raising it admits waiters at once.
  void set_limit(const std::string& host, std::size_t limit);
  // Waits for a slot of `host`; resumes on the awaiting coroutine's executor. Waiting is not
  // cancellable yet: callers bound it with the request's own timeout upstream.
  boost::asio::awaitable<Permit> acquire(std::string host);
  // Requests holding a slot of `host` now (for tests and metrics).
  std::size_t in_flight(const std::string& host) const;
  std::size_t waiting(const std::string& host) const;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace ironhold::bmc::http

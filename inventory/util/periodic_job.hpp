#pragma once
// A piece of blocking work run every `interval` on a thread pool (never on an I/O thread), one run
// at a time: the next wait starts when a run has ended. stop() cancels the timer and waits, up to
// a grace, for a run under way. The rollout runner and the password rotation policy are two.
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <functional>

#include "inventory/util/in_flight.hpp"

namespace ironhold {

class PeriodicJob {
 public:
  // `work` must not throw (it catches and logs what it cannot do).
  PeriodicJob(boost::asio::any_io_executor executor, boost::asio::thread_pool& pool,
              std::chrono::milliseconds interval, std::function<void()> work);
  ~PeriodicJob();
  PeriodicJob(const PeriodicJob&) = delete;
  PeriodicJob& operator=(const PeriodicJob&) = delete;

  void start(std::chrono::milliseconds first_delay);
  // Stops the timer and waits (up to `grace`) for a run under way. Never on an I/O thread.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(10));

 private:
  void schedule(std::chrono::milliseconds delay);

  boost::asio::thread_pool& pool_;
  std::chrono::milliseconds interval_;
  std::function<void()> work_;
  boost::asio::steady_timer timer_;
  std::atomic<bool> stopped_{false};
  InFlight in_flight_;
};

}  // namespace ironhold

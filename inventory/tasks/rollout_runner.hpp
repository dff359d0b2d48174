#pragma once
// Moves firmware rollouts on: every `interval`, RolloutStore::advance on the blocking pool (never
// on an I/O thread), and a wake-up for the task engine when it created tasks. Every instance runs
// one; the rollouts' row locks keep them from stepping on each other.
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>

#include "inventory/db/rollout_store.hpp"
#include "inventory/util/in_flight.hpp"

namespace ironhold {

class TaskEngine;

class RolloutRunner {
 public:
  // `engine` may be null (tasks are then only claimed at its next idle tick elsewhere).
  RolloutRunner(boost::asio::any_io_executor executor, boost::asio::thread_pool& pool,
                db::RolloutStore& store, TaskEngine* engine,
                std::chrono::milliseconds interval = std::chrono::seconds(2));
  ~RolloutRunner();
  RolloutRunner(const RolloutRunner&) = delete;
  RolloutRunner& operator=(const RolloutRunner&) = delete;

  void start();
  // Stops the timer and waits (up to `grace`) for an advance under way. Never on an I/O thread.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(10));

 private:
  void schedule(std::chrono::milliseconds delay);

  boost::asio::thread_pool& pool_;
  db::RolloutStore& store_;
  TaskEngine* engine_;
  std::chrono::milliseconds interval_;
  boost::asio::steady_timer timer_;
  std::atomic<bool> stopped_{false};
  InFlight in_flight_;
};

}  // namespace ironhold

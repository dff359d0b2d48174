#pragma once
// Moves firmware rollouts on: every `interval`, RolloutStore::advance on the blocking pool (never
// on an I/O thread), and a wake-up for the task engine when it created tasks. Every instance runs
// one; the rollouts' row locks keep them from stepping on each other.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>

#include "inventory/db/rollout_store.hpp"
#include "inventory/util/periodic_job.hpp"

namespace ironhold {

class TaskEngine;

class RolloutRunner {
 public:
  // `engine` may be null (tasks are then only claimed at its next idle tick elsewhere).
  RolloutRunner(boost::asio::any_io_executor executor, boost::asio::thread_pool& pool,
                db::RolloutStore& store, TaskEngine* engine,
                std::chrono::milliseconds interval = std::chrono::seconds(2));

  void start() { job_.start(std::chrono::milliseconds(0)); }
  // Stops the timer and waits (up to `grace`) for an advance under way. Never on an I/O thread.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(10)) { job_.stop(grace); }

 private:
  void advance();

  db::RolloutStore& store_;
  TaskEngine* engine_;
  PeriodicJob job_;  // last: stopped (by its destructor) before the rest goes
};

}  // namespace ironhold

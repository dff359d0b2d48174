#pragma once
// The projects' BMC password rotation policies carried out: every `interval`,
// TaskStore::create_due_rotations on the blocking pool (never on an I/O thread), and a wake-up for
// the task engine when it created tasks. Every instance runs one; the nodes' row locks and the
// "no rotation under way" rule keep two from starting the same rotation.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>

#include "inventory/db/task_store.hpp"
#include "inventory/util/periodic_job.hpp"

namespace ironhold {

class TaskEngine;

class PasswordRotation {
 public:
  PasswordRotation(boost::asio::any_io_executor executor, boost::asio::thread_pool& pool,
                   db::TaskStore& store, TaskEngine* engine,
                   std::chrono::milliseconds interval = std::chrono::minutes(10));

  // The first scan after one interval: a service starting up has other work first.
  void start() { job_.start(interval_); }
  // Stops the timer and waits (up to `grace`) for a scan under way. Never on an I/O thread.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(10)) { job_.stop(grace); }

 private:
  void scan();

  db::TaskStore& store_;
  TaskEngine* engine_;
  std::chrono::milliseconds interval_;
  PeriodicJob job_;  // last: stopped (by its destructor) before the rest goes
};

}  // namespace ironhold

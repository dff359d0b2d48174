#pragma once
// One claimed task being carried out: its steps, persisted as they change, and the signals that
// may interrupt it (a cancel request, a lost lease, this instance stopping). The step functions
// (power_task.cpp, ...) drive it; the engine creates it and records how it ended.
#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "inventory/db/task_store.hpp"

namespace ironhold::tasks {

// Set by the engine's lease renewal and by stop(); read by the task between its steps.
struct RunSignals {
  std::atomic<bool> cancel_requested{false};
  std::atomic<bool> lease_lost{false};
  std::atomic<bool> stopping{false};
};

// How a task ended; nullopt from a step function means "interrupted: give it back unfinished".
struct TaskOutcome {
  TaskState state = TaskState::succeeded;
  nlohmann::json result = nullptr;
  std::optional<std::string> error;
};

class TaskRun {
 public:
  TaskRun(db::TaskJob job, db::TaskStore& store, boost::asio::thread_pool& pool, std::string owner,
          std::shared_ptr<RunSignals> signals, std::chrono::milliseconds verify_interval);

  const db::TaskJob& job() const { return job_; }
  const Task& task() const { return job_.task; }
  const nlohmann::json& parameters() const { return job_.task.parameters; }
  const nlohmann::json& secrets() const { return job_.secrets; }
  std::vector<TaskStep>& steps() { return steps_; }
  std::chrono::milliseconds verify_interval() const { return verify_interval_; }

  // The index of the step named `name`: the recorded one when the task is resumed, else a new
  // pending step appended.
  std::size_t step(std::string_view name);
  TaskStep& at(std::size_t index) { return steps_[index]; }
  bool done(std::size_t index) const;  // succeeded or skipped
  void begin(std::size_t index, StepState state, std::string detail = {});
  void end(std::size_t index, StepState state, std::string detail);

  // Writes the steps; false when the lease is no longer ours (stop at once, write nothing more).
  boost::asio::awaitable<bool> save();

  bool cancel_requested() const { return signals_->cancel_requested; }
  // Cancelled, lease lost, or stopping: the step functions return at their next boundary.
  bool interrupted() const;
  // Waits `duration`, ending early (false) when interrupted.
  boost::asio::awaitable<bool> pause(std::chrono::milliseconds duration);

  // Builds the outcome for a task that stopped because of interrupted(): cancelled when that
  // was asked (saying what had been sent already), else nullopt (hand it back).
  std::optional<TaskOutcome> interruption(const std::string& already_sent);

 private:
  db::TaskJob job_;
  std::vector<TaskStep> steps_;
  db::TaskStore& store_;
  boost::asio::thread_pool& pool_;
  std::string owner_;
  std::shared_ptr<RunSignals> signals_;
  std::chrono::milliseconds verify_interval_;
};

}  // namespace ironhold::tasks

#include "inventory/tasks/task_run.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "inventory/util/log.hpp"
#include "inventory/util/on_pool.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::tasks {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

std::string now_text() {
  return format_rfc3339(std::chrono::system_clock::now());
}

bool is_final(StepState s) {
  return s == StepState::succeeded || s == StepState::failed || s == StepState::skipped ||
         s == StepState::cancelled;
}

}  // namespace

TaskRun::TaskRun(db::TaskJob job, db::TaskStore& store, asio::thread_pool& pool, std::string owner,
                 std::shared_ptr<RunSignals> signals, std::chrono::milliseconds verify_interval)
    : job_(std::move(job)),
      steps_(job_.task.steps),
      store_(store),
      pool_(pool),
      owner_(std::move(owner)),
      signals_(std::move(signals)),
      verify_interval_(verify_interval) {}

std::size_t TaskRun::step(std::string_view name) {
  for (std::size_t i = 0; i < steps_.size(); ++i)
    if (steps_[i].name == name) return i;
  TaskStep fresh;
  fresh.name = std::string(name);
  steps_.push_back(std::move(fresh));
  return steps_.size() - 1;
}

bool TaskRun::done(std::size_t index) const {
  const auto s = steps_[index].state;
  return s == StepState::succeeded || s == StepState::skipped;
}

void TaskRun::begin(std::size_t index, StepState state, std::string detail) {
  TaskStep& s = steps_[index];
  if (!s.started_at) s.started_at = now_text();
  s.state = state;
  if (!detail.empty()) s.detail = std::move(detail);
}

void TaskRun::end(std::size_t index, StepState state, std::string detail) {
  TaskStep& s = steps_[index];
  if (!s.started_at) s.started_at = now_text();
  s.finished_at = now_text();
  s.state = state;
  s.detail = std::move(detail);
}

asio::awaitable<bool> TaskRun::save() {
  if (signals_->lease_lost) co_return false;
  auto write = [store = &store_, id = job_.task.id, owner = owner_, steps = steps_] {
    try {
      return store->save_steps(id, owner, steps);
    } catch (const std::exception& e) {
      // The database is briefly unreachable: keep going; the lease renewal decides whether the
      // task is still ours, and the next save writes the steps again.
      log::warn("could not save a task's steps", {{"task", id}, {"error", e.what()}});
      return true;
    }
  };
  const bool owned = co_await on_pool(pool_, std::move(write));
  if (!owned) signals_->lease_lost = true;
  co_return owned;
}

bool TaskRun::interrupted() const {
  return signals_->cancel_requested || signals_->lease_lost || signals_->stopping;
}

asio::awaitable<bool> TaskRun::pause(std::chrono::milliseconds duration) {
  // In slices, so that a cancel or a stop is noticed within a quarter second.
  asio::steady_timer timer(co_await asio::this_coro::executor);
  const auto until = Clock::now() + duration;
  while (!interrupted()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) co_return true;
    timer.expires_after(std::min(left, std::chrono::milliseconds(250)));
    boost::system::error_code ec;
    auto token = asio::redirect_error(asio::use_awaitable, ec);
    co_await timer.async_wait(token);
  }
  co_return false;
}

std::optional<TaskOutcome> TaskRun::interruption(const std::string& already_sent) {
  if (signals_->lease_lost || !signals_->cancel_requested) return std::nullopt;
  for (auto& s : steps_)
    if (!is_final(s.state)) {
      if (!s.started_at) s.started_at = now_text();
      s.finished_at = now_text();
      s.state = StepState::cancelled;
    }
  TaskOutcome out;
  out.state = TaskState::cancelled;
  std::string message = "cancelled on request";
  if (!already_sent.empty()) message += " after " + already_sent + " had been sent";
  out.error = message;
  return out;
}

}  // namespace ironhold::tasks

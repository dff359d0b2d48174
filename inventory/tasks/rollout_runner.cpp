#include "inventory/tasks/rollout_runner.hpp"

#include "inventory/tasks/task_engine.hpp"
#include "inventory/util/log.hpp"

namespace ironhold {

RolloutRunner::RolloutRunner(boost::asio::any_io_executor executor, boost::asio::thread_pool& pool,
                             db::RolloutStore& store, TaskEngine* engine,
                             std::chrono::milliseconds interval)
    : store_(store),
      engine_(engine),
      job_(std::move(executor), pool, interval, [this] { advance(); }) {}

void RolloutRunner::advance() {
  try {
    const auto step = store_.advance();
    if (step.tasks_created > 0 && engine_) engine_->wake();
  } catch (const std::exception& e) {
    log::warn("firmware rollouts could not be advanced; retrying", {{"error", e.what()}});
  }
}

}  // namespace ironhold

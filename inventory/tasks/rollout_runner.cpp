#include "inventory/tasks/rollout_runner.hpp"

#include <boost/asio/post.hpp>

#include "inventory/tasks/task_engine.hpp"
#include "inventory/util/log.hpp"

namespace ironhold {

RolloutRunner::RolloutRunner(boost::asio::any_io_executor executor,
                             boost::asio::thread_pool& pool, db::RolloutStore& store,
                             TaskEngine* engine, std::chrono::milliseconds interval)
    : pool_(pool), store_(store), engine_(engine), interval_(interval), timer_(executor) {}

RolloutRunner::~RolloutRunner() {
  stop();
}

void RolloutRunner::start() {
  schedule(std::chrono::milliseconds(0));
}

void RolloutRunner::stop(std::chrono::milliseconds grace) {
  if (stopped_.exchange(true)) return;
  boost::asio::post(timer_.get_executor(), [this] { timer_.cancel(); });
  in_flight_.wait_idle(grace);
}

void RolloutRunner::schedule(std::chrono::milliseconds delay) {
  in_flight_.add();  // the timer's wait counts, so that stop() outlives its handler
  timer_.expires_after(delay);
  timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || stopped_) {
      in_flight_.done();
      return;
    }
    boost::asio::post(pool_, [this] {
      try {
        const auto step = store_.advance();
        if (step.tasks_created > 0 && engine_) engine_->wake();
      } catch (const std::exception& e) {
        log::warn("firmware rollouts could not be advanced; retrying", {{"error", e.what()}});
      }
      boost::asio::post(timer_.get_executor(), [this] {
        if (!stopped_) schedule(interval_);
        in_flight_.done();
      });
    });
  });
}

}  // namespace ironhold

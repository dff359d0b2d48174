#include "inventory/util/periodic_job.hpp"

#include <boost/asio/post.hpp>

namespace ironhold {

PeriodicJob::PeriodicJob(boost::asio::any_io_executor executor, boost::asio::thread_pool& pool,
                         std::chrono::milliseconds interval, std::function<void()> work)
    : pool_(pool), interval_(interval), work_(std::move(work)), timer_(std::move(executor)) {}

PeriodicJob::~PeriodicJob() {
  stop();
}

void PeriodicJob::start(std::chrono::milliseconds first_delay) {
  schedule(first_delay);
}

void PeriodicJob::stop(std::chrono::milliseconds grace) {
  if (stopped_.exchange(true)) return;
  boost::asio::post(timer_.get_executor(), [this] { timer_.cancel(); });
  in_flight_.wait_idle(grace);
}

void PeriodicJob::schedule(std::chrono::milliseconds delay) {
  in_flight_.add();  // the timer's wait counts, so that stop() outlives its handler
  timer_.expires_after(delay);
  timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || stopped_) {
      in_flight_.done();
      return;
    }
    boost::asio::post(pool_, [this] {
      work_();
      boost::asio::post(timer_.get_executor(), [this] {
        if (!stopped_) schedule(interval_);
        in_flight_.done();
      });
    });
  });
}

}  // namespace ironhold

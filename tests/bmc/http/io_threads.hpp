#pragma once
// An io_context run by two threads for the length of a test, as the service runs it, and a way
// to wait for a coroutine's result from the test's own thread.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <thread>
#include <vector>

namespace ironhold::test {

class IoThreads {
 public:
  IoThreads() {
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io.run(); });
  }
  ~IoThreads() {
    guard_.reset();
    for (auto& t : threads_) t.join();
  }
  IoThreads(const IoThreads&) = delete;
  IoThreads& operator=(const IoThreads&) = delete;

  template <class T>
  T run(boost::asio::awaitable<T> work) {
    auto future = boost::asio::co_spawn(io, std::move(work), boost::asio::use_future);
    return future.get();
  }

  boost::asio::io_context io;

 private:
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ =
      boost::asio::make_work_guard(io);
  std::vector<std::thread> threads_;
};

}  // namespace ironhold::test

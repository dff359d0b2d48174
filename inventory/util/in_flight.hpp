#pragma once
// Counts work in flight (polls, syncs, tasks) so that a stopping service can wait, for a bounded
// time, until what it started has finished. Thread-safe; waiting blocks, so never wait on an I/O
// thread.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace ironhold {

class InFlight {
 public:
  void add() {
    std::lock_guard lock(mutex_);
    ++count_;
  }
  void done() {
    std::lock_guard lock(mutex_);
    if (count_ > 0 && --count_ == 0) idle_.notify_all();
  }
  std::size_t count() const {
    std::lock_guard lock(mutex_);
    return count_;
  }
  // True when nothing was in flight by the end of `grace`.
  bool wait_idle(std::chrono::milliseconds grace) {
    std::unique_lock lock(mutex_);
    return idle_.wait_for(lock, grace, [this] { return count_ == 0; });
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable idle_;
  std::size_t count_ = 0;
};

}  // namespace ironhold

#pragma once
// A file descriptor that another thread makes readable: it wakes a thread blocked in poll() on it
// (the change feed waiting for a NOTIFY) at once, so that stopping never waits out a timeout.
#include <chrono>

namespace ironhold {

class WakeFd {
 public:
  WakeFd();  // throws std::system_error when the kernel has no descriptor to give
  ~WakeFd();
  WakeFd(const WakeFd&) = delete;
  WakeFd& operator=(const WakeFd&) = delete;

  int fd() const noexcept { return fd_; }
  // Makes fd() readable until drain(). Safe from any thread.
  void wake() noexcept;
  void drain() noexcept;
  // Sleeps until woken or `timeout` passes; true when woken (and drained).
  bool wait(std::chrono::milliseconds timeout) noexcept;

 private:
  int fd_ = -1;
};

}  // namespace ironhold

#include "web/auth/socket_watchdog.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ironhold::web::auth {

SocketWatchdog::SocketWatchdog(std::chrono::milliseconds limit)
    : limit_(limit), thread_([this] { run(); }) {}

SocketWatchdog::~SocketWatchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
  if (socket_ >= 0) ::close(socket_);
}

void SocketWatchdog::watch(int socket) {
  std::lock_guard lock(mutex_);
  if (socket_ >= 0) ::close(socket_);
  socket_ = ::fcntl(socket, F_DUPFD_CLOEXEC, 0);
  if (expired_ && socket_ >= 0) ::shutdown(socket_, SHUT_RDWR);
}

void SocketWatchdog::forget() {
  std::lock_guard lock(mutex_);
  if (socket_ >= 0) ::close(socket_);
  socket_ = -1;
}

void SocketWatchdog::arm() {
  {
    std::lock_guard lock(mutex_);
    deadline_ = std::chrono::steady_clock::now() + limit_;
    expired_ = false;
  }
  wake_.notify_one();
}

void SocketWatchdog::disarm() {
  std::lock_guard lock(mutex_);
  deadline_.reset();
  expired_ = false;
}

bool SocketWatchdog::fired() const {
  std::lock_guard lock(mutex_);
  return fired_;
}

void SocketWatchdog::shut_down_locked() {
  fired_ = true;
  expired_ = true;
  deadline_.reset();
  if (socket_ >= 0) ::shutdown(socket_, SHUT_RDWR);
}

void SocketWatchdog::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (!deadline_) {
      wake_.wait(lock);
      continue;
    }
    const auto deadline = *deadline_;
    // Woken early, the deadline may have moved (disarmed, armed again): looked at afresh.
    if (wake_.wait_until(lock, deadline) == std::cv_status::timeout && deadline_ &&
        std::chrono::steady_clock::now() >= *deadline_)
      shut_down_locked();
  }
}

}  // namespace ironhold::web::auth

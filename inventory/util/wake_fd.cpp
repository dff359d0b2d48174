#include "inventory/util/wake_fd.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

namespace ironhold {

WakeFd::WakeFd() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
}

WakeFd::~WakeFd() {
  ::close(fd_);
}

void WakeFd::wake() noexcept {
  const std::uint64_t one = 1;
  // Only fails when the counter is saturated, which means it is readable already.
  [[maybe_unused]] const auto written = ::write(fd_, &one, sizeof one);
}

void WakeFd::drain() noexcept {
  std::uint64_t count = 0;
  [[maybe_unused]] const auto read = ::read(fd_, &count, sizeof count);
}

bool WakeFd::wait(std::chrono::milliseconds timeout) noexcept {
  pollfd entry{fd_, POLLIN, 0};
  const int ready = ::poll(&entry, 1, static_cast<int>(timeout.count()));
  if (ready <= 0) return false;
  drain();
  return true;
}

}  // namespace ironhold

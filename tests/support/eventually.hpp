#pragma once
// Waits for something another thread or process does: polls `ready` every 100 ms until it holds,
// for at most `cap` (a safety net so that a broken feature fails the test instead of hanging it,
// not a timing assertion).
#include <chrono>
#include <functional>
#include <thread>

namespace ironhold::test {

inline bool eventually(const std::function<bool()>& ready,
                       std::chrono::seconds cap = std::chrono::seconds(60)) {
  const auto until = std::chrono::steady_clock::now() + cap;
  while (std::chrono::steady_clock::now() < until) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return ready();
}

}  // namespace ironhold::test

#pragma once
// Which of the BMC's session sequence numbers the console still accepts (IPMI v2.0 section
// 6.12.13): each number once, and only near the highest seen. A packet seen before (a replay or
// a duplicate the network made) or far outside the window (a stale or forged one) is dropped
// before its payload is looked at. Sequence number 0 never appears inside a session.
#include <cstdint>

namespace ironhold::bmc::ipmi {

class SequenceWindow {
 public:
  // How far behind the highest number seen a late packet may be, and how far ahead one may
  // jump (packets the network lost in between).
  static constexpr std::uint32_t kBehind = 16;
  static constexpr std::uint32_t kAhead = 32;

  // Whether `sequence` is new and in the window; records it when it is.
  bool accept(std::uint32_t sequence);
  void reset() { *this = SequenceWindow{}; }

 private:
  std::uint32_t highest_ = 0;  // 0: nothing seen yet
  std::uint32_t seen_ = 0;     // bit i: highest_ - 1 - i was seen
};

}  // namespace ironhold::bmc::ipmi

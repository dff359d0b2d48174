#include "bmc/ipmi/sequence_window.hpp"

namespace ironhold::bmc::ipmi {

bool SequenceWindow::accept(std::uint32_t sequence) {
  if (sequence == 0) return false;
  if (highest_ == 0) {
    highest_ = sequence;
    return true;
  }
  // Unsigned differences: the sequence number wraps from FFFFFFFFh to 1 in a long session.
  const std::uint32_t ahead = sequence - highest_;
  if (ahead != 0 && ahead <= kAhead) {
    // Shift the seen-bits by how far the window moves; the old highest becomes bit ahead-1.
    seen_ = ahead >= 32 ? 0 : (seen_ << ahead);
    seen_ |= ahead <= 32 ? (1u << (ahead - 1)) : 0;
    highest_ = sequence;
    return true;
  }
  const std::uint32_t behind = highest_ - sequence;
  if (behind == 0 || behind > kBehind) return false;
  const std::uint32_t bit = 1u << (behind - 1);
  if (seen_ & bit) return false;
  seen_ |= bit;
  return true;
}

}  // namespace ironhold::bmc::ipmi

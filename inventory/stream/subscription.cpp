#include "inventory/stream/subscription.hpp"

namespace ironhold::stream {

Subscription::Subscription(Wants wants, std::function<void()> wake)
    : wants_(std::move(wants)), wake_(std::move(wake)) {}

std::vector<ChangeEventPtr> Subscription::take() {
  std::lock_guard lock(mutex_);
  std::vector<ChangeEventPtr> out;
  out.swap(queue_);
  return out;
}

bool Subscription::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

bool Subscription::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

Subscription::Offered Subscription::offer(const std::vector<ChangeEventPtr>& events,
                                          std::size_t max) {
  Offered offered;
  std::lock_guard lock(mutex_);
  if (dropped_ || closed_) return offered;
  for (const auto& event : events) {
    if (!wants_(event->row)) continue;
    if (queue_.size() >= max) {
      // Memory stays bounded whatever the reader does; it reads the rest from the database.
      queue_.clear();
      queue_.shrink_to_fit();
      dropped_ = true;
      offered.dropped = true;
      return offered;
    }
    queue_.push_back(event);
    offered.queued = true;
  }
  return offered;
}

void Subscription::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  wake();
}

void Subscription::wake() const {
  if (wake_) wake_();
}

}  // namespace ironhold::stream

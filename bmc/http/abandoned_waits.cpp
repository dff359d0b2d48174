#include "bmc/http/abandoned_waits.hpp"

#include <boost/asio/execution/context.hpp>
#include <boost/asio/query.hpp>
#include <utility>

namespace ironhold::bmc::http {
namespace asio = boost::asio;

asio::execution_context::id AbandonedWaits::id;

AbandonedWaits::AbandonedWaits(asio::execution_context& context)
    : asio::execution_context::service(context) {}

AbandonedWaits& AbandonedWaits::of(const asio::any_io_executor& executor) {
  return asio::use_service<AbandonedWaits>(asio::query(executor, asio::execution::context));
}

AbandonedWaits::Registration::Registration(Registration&& other) noexcept
    : service_(std::exchange(other.service_, nullptr)), key_(other.key_) {}

AbandonedWaits::Registration& AbandonedWaits::Registration::operator=(
    Registration&& other) noexcept {
  if (this != &other) {
    reset();
    service_ = std::exchange(other.service_, nullptr);
    key_ = other.key_;
  }
  return *this;
}

void AbandonedWaits::Registration::reset() {
  if (service_ != nullptr) std::exchange(service_, nullptr)->remove(key_);
}

AbandonedWaits::Registration AbandonedWaits::add(std::function<void()> drop) {
  std::lock_guard lock(mutex_);
  const std::uint64_t key = ++next_key_;
  drops_.emplace(key, std::move(drop));
  return Registration(this, key);
}

void AbandonedWaits::remove(std::uint64_t key) {
  std::lock_guard lock(mutex_);
  drops_.erase(key);
}

// Outside the lock: a dropped coroutine frame may free an owner, whose registration then removes
// itself (a no-op by now).
void AbandonedWaits::shutdown() {
  std::map<std::uint64_t, std::function<void()>> drops;
  {
    std::lock_guard lock(mutex_);
    drops.swap(drops_);
  }
  for (auto& [key, drop] : drops) drop();
}

}  // namespace ironhold::bmc::http

#include "bmc/http/abandoned_waits.hpp"

#include <boost/asio/execution/context.hpp>
#include <boost/asio/query.hpp>
#include <utility>

namespace ironhold::bmc::http {
namespace asio = boost::asio;

struct AbandonedWaits::Registry {
  std::mutex mutex;
  std::uint64_t next_key = 0;
  std::map<std::uint64_t, std::function<void()>> drops;
};

asio::execution_context::id AbandonedWaits::id;

AbandonedWaits::AbandonedWaits(asio::execution_context& context)
    : asio::execution_context::service(context), registry_(std::make_shared<Registry>()) {}

AbandonedWaits& AbandonedWaits::of(const asio::any_io_executor& executor) {
  return asio::use_service<AbandonedWaits>(asio::query(executor, asio::execution::context));
}

AbandonedWaits::Registration& AbandonedWaits::Registration::operator=(
    Registration&& other) noexcept {
  if (this != &other) {
    reset();
    registry_ = std::move(other.registry_);
    key_ = other.key_;
  }
  return *this;
}

void AbandonedWaits::Registration::reset() {
  if (!registry_) return;
  const auto registry = std::move(registry_);
  std::lock_guard lock(registry->mutex);
  registry->drops.erase(key_);
}

AbandonedWaits::Registration AbandonedWaits::add(std::function<void()> drop) {
  std::lock_guard lock(registry_->mutex);
  const std::uint64_t key = ++registry_->next_key;
  registry_->drops.emplace(key, std::move(drop));
  return Registration(registry_, key);
}

// Outside the lock: a dropped coroutine frame may free an owner, whose registration then removes
// itself (a no-op by now).
void AbandonedWaits::shutdown() {
  std::map<std::uint64_t, std::function<void()>> drops;
  {
    std::lock_guard lock(registry_->mutex);
    drops.swap(registry_->drops);
  }
  for (auto& [key, drop] : drops) drop();
}

}  // namespace ironhold::bmc::http

#pragma once
// Our own asynchronous waits (a libcurl transfer in flight, a request queued for a BMC's slot) keep
// the waiting coroutine's handler in objects of ours, which that coroutine's frame keeps alive in
// turn. Asio destroys its own pending operations, and the coroutines waiting on them, when their
// execution context shuts down; ours it cannot see, so a wait still pending when the context
// stopped for good was a cycle nothing freed (LeakSanitizer caught it at the demo's exit, with
// polls in flight to slow BMCs).
//
// Owners of such waits register here; when the context shuts down, every registered owner drops
// its waits without resuming them, before Asio destroys its queued handlers, so the frames go with
// the rest of the context's pending work.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/execution_context.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace ironhold::bmc::http {

class AbandonedWaits final : public boost::asio::execution_context::service {
  struct Registry;

 public:
  using key_type = AbandonedWaits;
  static boost::asio::execution_context::id id;

  explicit AbandonedWaits(boost::asio::execution_context& context);

  // The service of the context `executor` runs on.
  static AbandonedWaits& of(const boost::asio::any_io_executor& executor);

  // Keeps an owner registered until destroyed. `drop` runs at most once, when the context shuts
  // down and nothing runs it any more; it must drop the owner's waits without resuming them.
  // A registration may outlive its context: it then unregisters from nothing.
  class Registration {
   public:
    Registration() = default;
    Registration(std::shared_ptr<Registry> registry, std::uint64_t key)
        : registry_(std::move(registry)), key_(key) {}
    Registration(Registration&& other) noexcept = default;
    Registration& operator=(Registration&& other) noexcept;
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
    ~Registration() { reset(); }
    void reset();

   private:
    std::shared_ptr<Registry> registry_;
    std::uint64_t key_ = 0;
  };

  [[nodiscard]] Registration add(std::function<void()> drop);

 private:
  void shutdown() override;

  // Shared with the registrations, so that one destroyed after the context (an owner that
  // outlives it) touches nothing freed.
  std::shared_ptr<Registry> registry_;
};

}  // namespace ironhold::bmc::http

#pragma once
// Our own asynchronous waits (a libcurl transfer in flight) keep the waiting coroutine's handler in
// objects of ours, which that coroutine's frame keeps alive in turn. Asio destroys its own pending
// operations, and the coroutines waiting on them, when their execution context shuts down; ours it
// cannot see, so a wait still pending when the context stopped for good was a cycle nothing freed
// (LeakSanitizer caught it at the demo's exit, with polls in flight to slow BMCs).
//
// Owners of such waits register here; when the context shuts down, every registered owner drops
// its waits without resuming them, before Asio destroys its queued handlers, so the frames go with
// the rest of the context's pending work.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/execution_context.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace ironhold::bmc::http {

class AbandonedWaits final : public boost::asio::execution_context::service {
 public:
  using key_type = AbandonedWaits;
  static boost::asio::execution_context::id id;

  explicit AbandonedWaits(boost::asio::execution_context& context);

  // The service of the context `executor` runs on.
  static AbandonedWaits& of(const boost::asio::any_io_executor& executor);

  // Keeps an owner registered until destroyed. `drop` runs at most once, when the context shuts
  // down and nothing runs it any more; it must drop the owner's waits without resuming them.
  class Registration {
   public:
    Registration() = default;
    Registration(AbandonedWaits* service, std::uint64_t key) : service_(service), key_(key) {}
    Registration(Registration&& other) noexcept;
    Registration& operator=(Registration&& other) noexcept;
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
    ~Registration() { reset(); }
    void reset();

   private:
    AbandonedWaits* service_ = nullptr;
    std::uint64_t key_ = 0;
  };

  [[nodiscard]] Registration add(std::function<void()> drop);

 private:
  void shutdown() override;
  void remove(std::uint64_t key);

  std::mutex mutex_;
  std::uint64_t next_key_ = 0;
  std::map<std::uint64_t, std::function<void()>> drops_;
};

}  // namespace ironhold::bmc::http

#pragma once
// A type-erased, move-only "resume the awaiting coroutine". Not asio::any_completion_handler:
// Boost 1.81's converting constructor also matches a non-const lvalue of itself and recurses
// forever (fixed in 1.82).
#include <memory>
#include <utility>

namespace ironhold::bmc::http_detail {

struct Resumer {
  virtual ~Resumer() = default;
  virtual void resume() = 0;
};

template <class Handler>
struct HandlerResumer final : Resumer {
  explicit HandlerResumer(Handler h) : handler(std::move(h)) {}
  void resume() override { std::move(handler)(); }
  Handler handler;
};

template <class Handler>
std::unique_ptr<Resumer> make_resumer(Handler handler) {
  return std::make_unique<HandlerResumer<Handler>>(std::move(handler));
}

}  // namespace ironhold::bmc::http_detail

// The per-BMC semaphore's lifetime: requests still queued for a BMC when the limiter goes away
// (the service stopping with polls waiting on a slow BMC) must be freed, not leaked. The witness
// is LeakSanitizer, which fails this test binary at exit if they are not.
#include "bmc/http/per_host_limiter.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// This file's names, apart from those of the other test files compiled with it.
namespace per_host_limiter_test {

using ironhold::bmc::http::PerHostLimiter;
namespace asio = boost::asio;

namespace {

// A request's state while it waits: it must be destroyed with the waiting coroutine.
struct Payload {
  explicit Payload(int& alive) : alive(alive) { ++alive; }
  ~Payload() { --alive; }
  int& alive;
  std::string bytes = std::string(4096, 'x');
};

// Coroutines take what they use as parameters: a lambda's captures would die with the lambda,
// before the coroutine ends.
asio::awaitable<void> take(PerHostLimiter* limiter, std::optional<PerHostLimiter::Permit>* into) {
  *into = co_await limiter->acquire("bmc:443");
}

asio::awaitable<void> wait_holding(PerHostLimiter* limiter, int* alive, int* served) {
  Payload payload(*alive);
  PerHostLimiter::Permit permit = co_await limiter->acquire("bmc:443");
  ++*served;
}

asio::awaitable<void> take_in_turn(PerHostLimiter* limiter,
                                   std::optional<PerHostLimiter::Permit>* into,
                                   std::vector<int>* order, int i) {
  *into = co_await limiter->acquire("bmc:443");
  order->push_back(i);
}

// Runs what is ready until nothing is: the coroutines waiting on the limiter keep the context's
// work count up, so run() would never return.
void settle(asio::io_context& io) {
  io.restart();
  while (io.poll() > 0) {
  }
}

}  // namespace

TEST_CASE("requests still waiting for a BMC when the limiter goes are freed", "[http][limiter]") {
  asio::io_context io;
  auto limiter = std::make_unique<PerHostLimiter>(1);
  std::optional<PerHostLimiter::Permit> held;
  int alive = 0;
  int served = 0;
  asio::co_spawn(io, take(limiter.get(), &held), asio::detached);
  for (int i = 0; i < 100; ++i)
    asio::co_spawn(io, wait_holding(limiter.get(), &alive, &served), asio::detached);
  settle(io);  // until everything waits on the limiter
  REQUIRE(held);
  CHECK(limiter->in_flight("bmc:443") == 1);
  CHECK(limiter->waiting("bmc:443") == 100);
  CHECK(alive == 100);

  limiter.reset();
  settle(io);         // Asio unwinds an abandoned coroutine on its executor
  CHECK(alive == 0);  // every waiting coroutine, and what it held, is gone
  CHECK(served == 0);
  held.reset();  // the permit outlives the limiter harmlessly
  settle(io);
  CHECK(served == 0);
}

namespace {

// A poll that owns (a share of) the client whose limiter it waits on: the limiter can then only go
// when the waiting coroutine does.
asio::awaitable<void> wait_owning(std::shared_ptr<PerHostLimiter> limiter, int* alive,
                                  int* served) {
  Payload payload(*alive);
  PerHostLimiter::Permit permit = co_await limiter->acquire("bmc:443");
  ++*served;
}

}  // namespace

TEST_CASE("requests waiting for a BMC are freed when their context shuts down first",
          "[http][limiter]") {
  int alive = 0;
  int served = 0;
  std::weak_ptr<PerHostLimiter> gone;
  std::optional<PerHostLimiter::Permit> held;
  {
    asio::io_context io;
    auto limiter = std::make_shared<PerHostLimiter>(1);
    gone = limiter;
    asio::co_spawn(io, take(limiter.get(), &held), asio::detached);
    for (int i = 0; i < 10; ++i)
      asio::co_spawn(io, wait_owning(limiter, &alive, &served), asio::detached);
    settle(io);
    REQUIRE(held);
    CHECK(limiter->waiting("bmc:443") == 10);
    CHECK(alive == 10);
    // Only the waiting coroutines own the limiter now; the context goes without running again.
  }
  CHECK(alive == 0);
  CHECK(served == 0);
  CHECK(gone.expired());
  held.reset();  // the last permit outlives the limiter and its context harmlessly
}

TEST_CASE("a released slot goes to the oldest waiter, one at a time", "[http][limiter]") {
  asio::io_context io;
  PerHostLimiter limiter(1);
  std::vector<int> order;
  std::optional<PerHostLimiter::Permit> current;
  for (int i = 0; i < 5; ++i)
    asio::co_spawn(io, take_in_turn(&limiter, &current, &order, i), asio::detached);
  settle(io);
  REQUIRE(order == std::vector<int>{0});
  for (int expected = 1; expected < 5; ++expected) {
    current.reset();  // hands the slot on
    settle(io);
    REQUIRE(order.back() == expected);
    CHECK(limiter.in_flight("bmc:443") == 1);
  }
  current.reset();
  CHECK(limiter.in_flight("bmc:443") == 0);
}

}  // namespace per_host_limiter_test

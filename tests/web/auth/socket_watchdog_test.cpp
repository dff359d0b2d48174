// The watchdog that ends a blocked socket operation at its deadline, on a socket pair: a read that
// would wait forever returns end-of-file once the limit has passed, and nothing happens to a
// socket while the watchdog is not armed.
#include "web/auth/socket_watchdog.hpp"

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

// This file's names, apart from those of the other test files compiled with it.
namespace socket_watchdog_test {

using namespace ironhold::web::auth;
using namespace std::chrono_literals;

// A failing watchdog must fail the test, not hang it: reads give up after 5 s on their own.
struct SocketPair {
  int ends[2] = {-1, -1};
  SocketPair() {
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, ends) == 0);
    const timeval five{5, 0};
    REQUIRE(::setsockopt(ends[0], SOL_SOCKET, SO_RCVTIMEO, &five, sizeof five) == 0);
  }
  ~SocketPair() {
    ::close(ends[0]);
    ::close(ends[1]);
  }
};

TEST_CASE("an armed watchdog ends a blocked read at its deadline", "[ldap]") {
  SocketPair pair;
  SocketWatchdog watchdog(200ms);
  watchdog.watch(pair.ends[0]);
  const auto start = std::chrono::steady_clock::now();
  char byte = 0;
  ssize_t got = -1;
  {
    const ArmedWatchdog armed(watchdog);
    got = ::read(pair.ends[0], &byte, 1);  // the peer never writes
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(got == 0);
  CHECK(watchdog.fired());
  CHECK(elapsed >= 190ms);
  CHECK(elapsed < 2s);
}

TEST_CASE("a disarmed watchdog leaves the socket alone", "[ldap]") {
  SocketPair pair;
  SocketWatchdog watchdog(50ms);
  watchdog.watch(pair.ends[0]);
  { const ArmedWatchdog armed(watchdog); }
  std::this_thread::sleep_for(150ms);
  CHECK_FALSE(watchdog.fired());
  REQUIRE(::write(pair.ends[1], "x", 1) == 1);
  char byte = 0;
  CHECK(::read(pair.ends[0], &byte, 1) == 1);
  CHECK(byte == 'x');
  // Forgotten (the library closed its socket): the deadline passes with nothing to shut down.
  watchdog.forget();
  {
    const ArmedWatchdog armed(watchdog);
    std::this_thread::sleep_for(150ms);
  }
  CHECK(watchdog.fired());
  REQUIRE(::write(pair.ends[1], "y", 1) == 1);
  CHECK(::read(pair.ends[0], &byte, 1) == 1);
}

TEST_CASE("a socket watched after its deadline passed is shut down at once", "[ldap]") {
  SocketPair pair;
  SocketWatchdog watchdog(10ms);
  const ArmedWatchdog armed(watchdog);
  std::this_thread::sleep_for(50ms);  // the deadline passes before the connect finishes
  watchdog.watch(pair.ends[0]);
  char byte = 0;
  CHECK(::read(pair.ends[0], &byte, 1) == 0);
}

}  // namespace socket_watchdog_test

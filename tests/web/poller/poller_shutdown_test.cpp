// The service stopping while polls wait on a BMC that never answers. stop() must return once the
// grace period is over, and the polls' coroutines, with everything they hold, must be freed: the
// witness for that is LeakSanitizer, which fails this binary at exit otherwise (the demo leaked
// this way when the browser tests stopped it mid-poll).
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "tests/bmc/http/http_peer.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "tests/web/poller/poller_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace poller_shutdown_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;

TEST_CASE("stopping with a poll in flight to a BMC that never answers frees the poll",
          "[poller][shutdown]") {
  HttpPeer bmc([](const std::string&) { return PeerResponse{.hang = true}; });
  web::ServerOptions options;
  options.shutdown_grace = 300ms;
  TestServer server(options, {}, fast_poller());
  const std::string token = server.token("admin");
  const auto enrolled = http_send(server.port(), "POST", "/api/v1/nodes",
                                  {{"name", "hung-bmc"},
                                   {"driver", "redfish"},
                                   {"endpoint", bmc.url("")},
                                   {"credentials", {{"username", "admin"}, {"password", "pw"}}}},
                                  token);
  INFO(enrolled.body);
  REQUIRE(enrolled.status == 201);

  const auto until = std::chrono::steady_clock::now() + 60s;
  while (bmc.requests() == 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(50ms);
  REQUIRE(bmc.requests() > 0);  // the poll now waits on the BMC

  server.stop();
}

}  // namespace poller_shutdown_test

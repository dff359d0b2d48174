// Graceful shutdown: a request in flight finishes and is answered; idle keep-alive connections
// are closed; no new connection is accepted.
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <catch2/catch.hpp>
#include <future>
#include <thread>

#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "web/request_context.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace server_shutdown_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;

namespace {

// A route that takes a while, registered by the test before any request is made.
void add_slow_route(TestServer& server, std::promise<void>& entered) {
  server.host().api().router().add(
      {web::http::verb::get,
       "/test/slow",
       web::Access::anyone,
       [&entered](web::RequestContext& ctx) -> web::asio::awaitable<web::Response> {
         entered.set_value();
         web::asio::steady_timer timer(co_await web::asio::this_coro::executor, 700ms);
         co_await timer.async_wait(web::asio::use_awaitable);
         co_return ctx.json(web::http::status::ok, {{"slow", true}});
       },
       {"test only", nlohmann::json::array(), nullptr, 200, nullptr}});
}

}  // namespace

TEST_CASE("graceful shutdown lets a request in flight finish and closes idle connections",
          "[web][server]") {
  TestServer server;
  std::promise<void> entered;
  add_slow_route(server, entered);
  const auto port = server.port();

  // An idle keep-alive connection: one request answered, then nothing.
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket idle(io);
  idle.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  namespace http = boost::beast::http;
  http::request<http::string_body> req{http::verb::get, "/healthz", 11};
  req.set(http::field::host, "127.0.0.1");
  http::write(idle, req);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> first;
  http::read(idle, buffer, first);
  REQUIRE(first.result_int() == 200);
  REQUIRE(first.keep_alive());

  auto slow =
      std::async(std::launch::async, [port] { return http_get(port, "/test/slow", std::nullopt); });
  REQUIRE(entered.get_future().wait_for(10s) == std::future_status::ready);
  server.stop();  // returns once every connection is gone

  const auto answered = slow.get();
  CHECK(answered.status == 200);
  CHECK(answered.json()["slow"] == true);

  // The idle connection was closed by the server, and nobody listens any more.
  http::response<http::string_body> none;
  boost::system::error_code ec;
  http::read(idle, buffer, none, ec);
  CHECK(ec);
  boost::asio::ip::tcp::socket late(io);
  late.connect({boost::asio::ip::make_address("127.0.0.1"), port}, ec);
  CHECK(ec);
}

}  // namespace server_shutdown_test

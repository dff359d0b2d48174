#pragma once
// How a faulty BMC behaves on the socket (used by redfish_server.cpp only): silence, a reset
// connection, a body dripped a few bytes at a time, a redirect loop, a 5xx storm. Templates on the
// stream so plain TCP and TLS act the same.
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>
#include <sstream>
#include <string>

#include "sim/redfish/bmc_state.hpp"

namespace ironhold::sim::redfish::wire {

namespace asio = boost::asio;
namespace beast = boost::beast;
inline constexpr auto as_tuple_awaitable = asio::as_tuple(asio::use_awaitable);

// Keeps the connection open and says nothing until the client gives up (or `longest` passes):
// what a hung BMC web server does. Whatever the client sends meanwhile is read and dropped.
template <class Stream>
asio::awaitable<void> stay_silent(Stream& stream, std::chrono::milliseconds longest) {
  auto& tcp = beast::get_lowest_layer(stream);
  tcp.expires_after(longest);
  char sink[512];
  for (;;) {
    auto [ec, n] = co_await tcp.async_read_some(asio::buffer(sink), as_tuple_awaitable);
    (void)n;
    if (ec) break;
  }
}

// An RST instead of an answer (SO_LINGER 0), not even a TLS close_notify.
template <class Stream>
void reset(Stream& stream) {
  auto& socket = beast::get_lowest_layer(stream).socket();
  boost::system::error_code ignored;
  socket.set_option(asio::socket_base::linger(true, 0), ignored);
  socket.close(ignored);
}

// Writes the header at once, then the body `chunk` bytes at a time with `pause` between.
template <class Stream>
asio::awaitable<bool> drip(Stream& stream, const Response& response,
                           std::chrono::milliseconds pause, std::chrono::milliseconds write_timeout,
                           std::size_t chunk = 16) {
  std::ostringstream text;
  text << response;
  const std::string raw = text.str();
  const std::size_t header_end = raw.find("\r\n\r\n");
  std::size_t sent = header_end == std::string::npos ? raw.size() : header_end + 4;
  auto& tcp = beast::get_lowest_layer(stream);
  tcp.expires_after(write_timeout);
  auto [ec, n] =
      co_await asio::async_write(stream, asio::buffer(raw.data(), sent), as_tuple_awaitable);
  (void)n;
  asio::steady_timer timer(tcp.get_executor());
  while (!ec && sent < raw.size()) {
    timer.expires_after(pause);
    auto [timer_ec] = co_await timer.async_wait(as_tuple_awaitable);
    (void)timer_ec;
    const std::size_t size = std::min(chunk, raw.size() - sent);
    tcp.expires_after(write_timeout);
    auto [write_ec, written] = co_await asio::async_write(
        stream, asio::buffer(raw.data() + sent, size), as_tuple_awaitable);
    ec = write_ec;
    sent += written;
  }
  co_return !ec;
}

// 302 to a twin URL of the target, whose own answer is a 302 back: a loop between two URLs.
Response redirect_loop(const std::string& target);
// A 500, or a 503 with Retry-After half of the time, with a Redfish error body.
Response server_error(bool unavailable);

}  // namespace ironhold::sim::redfish::wire

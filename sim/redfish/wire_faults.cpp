#include "sim/redfish/wire_faults.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/write.hpp>
#include <sstream>

#include "sim/redfish/errors.hpp"

namespace ironhold::sim::redfish::wire {

asio::awaitable<void> stay_silent(net::ByteStream& stream, std::chrono::milliseconds longest) {
  auto& tcp = stream.lowest();
  tcp.expires_after(longest);
  char sink[512];
  for (;;) {
    auto [ec, n] = co_await tcp.async_read_some(asio::buffer(sink), as_tuple_awaitable);
    (void)n;
    if (ec) break;
  }
}

void reset(net::ByteStream& stream) {
  auto& socket = stream.lowest().socket();
  boost::system::error_code ignored;
  socket.set_option(asio::socket_base::linger(true, 0), ignored);
  socket.close(ignored);
}

asio::awaitable<bool> drip(net::ByteStream& stream, const Response& response,
                           std::chrono::milliseconds pause, std::chrono::milliseconds write_timeout,
                           std::size_t chunk) {
  std::ostringstream text;
  text << response;
  const std::string raw = text.str();
  const std::size_t header_end = raw.find("\r\n\r\n");
  std::size_t sent = header_end == std::string::npos ? raw.size() : header_end + 4;
  auto& tcp = stream.lowest();
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

namespace {
constexpr std::string_view loop_marker = "ironhold_redirect=1";
}

Response redirect_loop(const std::string& target) {
  std::string location;
  const auto at = target.find(loop_marker);
  if (at != std::string::npos) {
    location = target.substr(0, at > 0 ? at - 1 : 0);  // drop "?marker" or "&marker"
    if (location.empty()) location = "/";
  } else {
    location =
        target + (target.find('?') == std::string::npos ? "?" : "&") + std::string(loop_marker);
  }
  Response res{http::status::found, 11};
  res.set(http::field::location, location);
  res.set(http::field::content_type, "text/plain");
  res.body() = "Moved to " + location + "\n";
  res.prepare_payload();
  return res;
}

Response server_error(bool unavailable) {
  if (!unavailable)
    return redfish_error(http::status::internal_server_error, "InternalError",
                         "The request failed due to an internal service error.");
  auto res = redfish_error(http::status::service_unavailable, "ServiceTemporarilyUnavailable",
                           "The service is temporarily unavailable. Retry in 1 seconds.", {"1"});
  res.set(http::field::retry_after, "1");
  return res;
}

}  // namespace ironhold::sim::redfish::wire

#include "sim/http_fetch.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <optional>

namespace ironhold::sim {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

struct PlainUrl {
  std::string host, port = "80", target = "/";
};

// "http://host:port/path?query"; nothing for anything else.
std::optional<PlainUrl> parse_plain_url(const std::string& url) {
  constexpr std::string_view scheme = "http://";
  if (url.compare(0, scheme.size(), scheme) != 0) return std::nullopt;
  const std::string rest = url.substr(scheme.size());
  const auto slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  PlainUrl out;
  if (slash != std::string::npos) out.target = rest.substr(slash);
  if (!authority.empty() && authority.front() == '[') {  // [::1]:8080
    const auto close = authority.find(']');
    if (close == std::string::npos) return std::nullopt;
    out.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':')
      out.port = authority.substr(close + 2);
  } else {
    const auto colon = authority.rfind(':');
    out.host = authority.substr(0, colon);
    if (colon != std::string::npos) out.port = authority.substr(colon + 1);
  }
  if (out.host.empty() || out.port.empty()) return std::nullopt;
  return out;
}

}  // namespace

asio::awaitable<FetchResult> http_fetch(std::string url, http::verb method, std::string body,
                                        std::size_t max_body, std::string range) {
  FetchResult out;
  const auto parsed = parse_plain_url(url);
  if (!parsed) {
    out.error = "not a plain http:// URL: " + url;
    co_return out;
  }
  auto executor = co_await asio::this_coro::executor;
  tcp::resolver resolver(executor);
  beast::tcp_stream stream(executor);
  boost::system::error_code ec;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  const auto endpoints = co_await resolver.async_resolve(parsed->host, parsed->port, token);
  if (ec) {
    out.error = "cannot resolve " + parsed->host + ": " + ec.message();
    co_return out;
  }
  stream.expires_after(std::chrono::seconds(10));
  co_await stream.async_connect(endpoints, token);
  if (ec) {
    out.error = "cannot connect to " + parsed->host + ":" + parsed->port + ": " + ec.message();
    co_return out;
  }
  http::request<http::string_body> request{method, parsed->target, 11};
  request.set(http::field::host, parsed->host + ":" + parsed->port);
  request.set(http::field::user_agent, "ironhold-sim");
  if (!body.empty()) request.set(http::field::content_type, "application/json");
  if (!range.empty()) request.set(http::field::range, range);
  request.body() = std::move(body);
  request.prepare_payload();
  co_await http::async_write(stream, request, token);
  if (ec) {
    out.error = "sending the request failed: " + ec.message();
    co_return out;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(max_body);
  stream.expires_after(std::chrono::minutes(10));  // a big image over a slow link
  co_await http::async_read(stream, buffer, parser, token);
  if (ec) {
    out.error = "reading the answer failed: " + ec.message();
    co_return out;
  }
  stream.socket().shutdown(tcp::socket::shutdown_both, ec);
  auto response = parser.release();
  out.status = static_cast<int>(response.result_int());
  out.content_range = std::string(response[http::field::content_range]);
  out.body = std::move(response.body());
  co_return out;
}

}  // namespace ironhold::sim

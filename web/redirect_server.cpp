#include "web/redirect_server.hpp"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <cctype>

#include "inventory/error.hpp"
#include "web/impl/listen.hpp"

namespace ironhold::web {
namespace {

namespace beast = boost::beast;
using tcp = asio::ip::tcp;
constexpr auto as_tuple_awaitable = asio::as_tuple(asio::use_awaitable);

bool host_character(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' ||
         c == '[' || c == ']';
}

asio::awaitable<void> redirect_one(tcp::socket socket, unsigned short https_port) {
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer;
  http::request_parser<http::empty_body> head;
  head.header_limit(8 * 1024);
  stream.expires_after(std::chrono::seconds(10));
  auto [ec, bytes] = co_await http::async_read_header(stream, buffer, head, as_tuple_awaitable);
  (void)bytes;
  if (ec) co_return;
  const auto& request = head.get();
  const std::string location =
      https_location(request[http::field::host], https_port, request.target());
  http::response<http::string_body> res{
      location.empty() ? http::status::bad_request : http::status::permanent_redirect,
      request.version()};
  res.set(http::field::content_type, "text/plain; charset=utf-8");
  if (location.empty()) {
    res.body() = "this port only redirects to HTTPS, and the request names no host\n";
  } else {
    res.set(http::field::location, location);
    res.body() = "use " + location + "\n";
  }
  res.keep_alive(false);
  res.prepare_payload();
  auto [write_ec, written] = co_await http::async_write(stream, res, as_tuple_awaitable);
  (void)write_ec;
  (void)written;
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

}  // namespace

std::string https_location(std::string_view host, unsigned short https_port,
                           std::string_view target) {
  if (host.empty() || host.size() > 255 || !std::all_of(host.begin(), host.end(), host_character))
    return {};
  // The host without its port: "[::1]:80" → "[::1]", "example.org:80" → "example.org".
  std::string_view name = host;
  if (name.front() == '[') {
    const auto close = name.find(']');
    if (close == std::string_view::npos) return {};
    name = name.substr(0, close + 1);
  } else if (const auto colon = name.rfind(':'); colon != std::string_view::npos) {
    name = name.substr(0, colon);
  }
  if (name.empty()) return {};
  std::string path(target.empty() || target.front() != '/' ? "/" : target);
  return "https://" + std::string(name) +
         (https_port == 443 ? "" : ":" + std::to_string(https_port)) + path;
}

RedirectServer::RedirectServer(asio::io_context& io, unsigned short https_port)
    : io_(io), https_port_(https_port) {}

RedirectServer::~RedirectServer() = default;

tcp::endpoint RedirectServer::listen(const tcp::endpoint& endpoint) {
  acceptor_ = std::make_unique<tcp::acceptor>(asio::make_strand(io_));
  if (const auto ec = net::listen_on(*acceptor_, endpoint))
    throw Error(ErrorKind::invalid, "cannot listen on " + endpoint.address().to_string() + ":" +
                                        std::to_string(endpoint.port()) +
                                        " for --http-redirect: " + ec.message());
  asio::co_spawn(acceptor_->get_executor(), accept_loop(), asio::detached);
  return acceptor_->local_endpoint();
}

void RedirectServer::close() {
  if (closed_.exchange(true) || !acceptor_) return;
  asio::post(acceptor_->get_executor(), [this] {
    boost::system::error_code ignored;
    acceptor_->close(ignored);
  });
}

asio::awaitable<void> RedirectServer::accept_loop() {
  while (!closed_) {
    auto [ec, socket] =
        co_await acceptor_->async_accept(asio::make_strand(io_), as_tuple_awaitable);
    if (ec) {
      if (closed_ || ec == asio::error::operation_aborted) break;
      continue;
    }
    const auto executor = socket.get_executor();
    asio::co_spawn(executor, redirect_one(std::move(socket), https_port_), asio::detached);
  }
}

}  // namespace ironhold::web

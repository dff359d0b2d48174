#include "sim/redfish/redfish_server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "sim/redfish/errors.hpp"
#include "sim/tls_cert.hpp"

namespace ironhold::sim::redfish {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;
constexpr auto as_tuple_awaitable = asio::as_tuple(asio::use_awaitable);

RedfishServer::RedfishServer(asio::io_context& io, BmcState& state, bool tls, ServerLimits limits)
    : io_(io), state_(state), want_tls_(tls), limits_(limits) {}

RedfishServer::~RedfishServer() = default;

tcp::endpoint RedfishServer::listen(const tcp::endpoint& endpoint) {
  if (want_tls_) {
    const SelfSignedCert cert = make_self_signed_cert(endpoint.address().to_string());
    ssl_ = std::make_unique<ssl::context>(ssl::context::tls_server);
    ssl_->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                      ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    ssl_->use_certificate_chain(asio::buffer(cert.cert_pem));
    ssl_->use_private_key(asio::buffer(cert.key_pem), ssl::context::pem);
  }
  acceptor_ = std::make_unique<tcp::acceptor>(io_);
  boost::system::error_code ec;
  acceptor_->open(endpoint.protocol(), ec);
  if (!ec) acceptor_->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_->bind(endpoint, ec);
  if (!ec) acceptor_->listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    throw invalid("cannot listen on " + endpoint.address().to_string() + ":" + std::to_string(endpoint.port()) +
                      ": " + ec.message(),
                  "listen");
  auto loop = accept_loop();
  asio::co_spawn(io_, std::move(loop), asio::detached);
  return acceptor_->local_endpoint();
}

void RedfishServer::close() {
  if (!acceptor_) return;
  boost::system::error_code ignored;
  acceptor_->close(ignored);
}

asio::awaitable<void> RedfishServer::accept_loop() {
  for (;;) {
    auto [ec, socket] = co_await acceptor_->async_accept(as_tuple_awaitable);
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor_->is_open()) break;
      log::warn("simulated BMC: accept failed", {{"error", ec.message()}});
      continue;
    }
    if (ssl_) {
      auto session = serve_tls(std::move(socket));
      asio::co_spawn(io_, std::move(session), asio::detached);
    } else {
      auto session = serve_plain(std::move(socket));
      asio::co_spawn(io_, std::move(session), asio::detached);
    }
  }
}

asio::awaitable<void> RedfishServer::serve_plain(tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  co_await serve_requests(stream);
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

asio::awaitable<void> RedfishServer::serve_tls(tcp::socket socket) {
  beast::ssl_stream<beast::tcp_stream> stream(beast::tcp_stream(std::move(socket)), *ssl_);
  beast::get_lowest_layer(stream).expires_after(limits_.request_timeout);
  auto [ec] = co_await stream.async_handshake(ssl::stream_base::server, as_tuple_awaitable);
  if (!ec) {
    co_await serve_requests(stream);
    beast::get_lowest_layer(stream).expires_after(limits_.write_timeout);
    auto [shutdown_ec] = co_await stream.async_shutdown(as_tuple_awaitable);
    (void)shutdown_ec;  // peers often just close: nothing to do about it
  }
}

template <class Stream>
asio::awaitable<void> RedfishServer::serve_requests(Stream& stream) {
  beast::flat_buffer buffer;
  bool first = true;
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(limits_.body_limit);
    parser.header_limit(16 * 1024);
    beast::get_lowest_layer(stream).expires_after(first ? limits_.request_timeout : limits_.idle_timeout);
    first = false;
    auto [ec, bytes] = co_await http::async_read(stream, buffer, parser, as_tuple_awaitable);
    (void)bytes;
    if (ec == http::error::body_limit || ec == http::error::header_limit) {
      auto res = redfish_error(http::status::payload_too_large, "GeneralError", "The request is too large.");
      res.keep_alive(false);
      beast::get_lowest_layer(stream).expires_after(limits_.write_timeout);
      co_await http::async_write(stream, res, as_tuple_awaitable);
      break;
    }
    if (ec) break;
    Request request = parser.release();
    Response response = state_.handle(request);
    response.set(http::field::server, "Ironhold simulated BMC");
    response.keep_alive(request.keep_alive());
    beast::get_lowest_layer(stream).expires_after(limits_.write_timeout);
    auto [write_ec, written] = co_await http::async_write(stream, response, as_tuple_awaitable);
    (void)written;
    if (write_ec || !response.keep_alive()) break;
  }
}

}  // namespace ironhold::sim::redfish

#include "sim/redfish/control_server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "inventory/error.hpp"
#include "sim/redfish/errors.hpp"
#include "sim/redfish/wire_faults.hpp"
#include "web/impl/listen.hpp"

namespace ironhold::sim::redfish {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

using wire::as_tuple_awaitable;

namespace {
constexpr std::chrono::seconds read_timeout{60};
}  // namespace

ControlServer::ControlServer(asio::io_context& io, Handler handler)
    : io_(io), handler_(std::move(handler)) {}

ControlServer::~ControlServer() {
  if (!acceptor_) return;
  boost::system::error_code ignored;
  acceptor_->close(ignored);
}

tcp::endpoint ControlServer::listen(const tcp::endpoint& endpoint) {
  acceptor_ = std::make_unique<tcp::acceptor>(io_);
  if (const auto ec = net::listen_on(*acceptor_, endpoint))
    throw invalid("cannot listen for the control API on " + endpoint.address().to_string() + ":" +
                      std::to_string(endpoint.port()) + ": " + ec.message(),
                  "control");
  auto loop = accept_loop();
  asio::co_spawn(io_, std::move(loop), asio::detached);
  return acceptor_->local_endpoint();
}

asio::awaitable<void> ControlServer::accept_loop() {
  for (;;) {
    auto [ec, socket] = co_await acceptor_->async_accept(as_tuple_awaitable);
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor_->is_open()) break;
      continue;
    }
    auto session = serve(std::move(socket));
    asio::co_spawn(io_, std::move(session), asio::detached);
  }
}

asio::awaitable<void> ControlServer::serve(tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer;
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(64 * 1024);
    parser.header_limit(16 * 1024);
    stream.expires_after(read_timeout);
    auto [ec, bytes] = co_await http::async_read(stream, buffer, parser, as_tuple_awaitable);
    (void)bytes;
    if (ec) break;
    Request request = parser.release();
    Response response = handler_(request);
    response.set(http::field::server, "Ironhold simulator control");
    response.keep_alive(request.keep_alive());
    stream.expires_after(read_timeout);
    auto [write_ec, written] = co_await http::async_write(stream, response, as_tuple_awaitable);
    (void)written;
    if (write_ec || !response.keep_alive()) break;
  }
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

}  // namespace ironhold::sim::redfish

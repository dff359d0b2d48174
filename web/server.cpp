#include "web/server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <charconv>

#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "web/impl/listen.hpp"
#include "web/problem.hpp"

namespace ironhold::web {

namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using asio::use_awaitable;
constexpr auto as_tuple_awaitable = asio::as_tuple(asio::use_awaitable);

struct Server::Connection {
  explicit Connection(tcp::socket socket) : peer(peer_address(socket)), stream(std::move(socket)) {}
  std::string peer;  // the client's address, for routes without a token to record
  beast::tcp_stream stream;

  static std::string peer_address(const tcp::socket& socket) {
    boost::system::error_code ec;
    const auto endpoint = socket.remote_endpoint(ec);
    return ec ? std::string("unknown") : endpoint.address().to_string();
  }
  bool busy = false;  // a request is being handled; only touched on the connection's strand
};

tcp::endpoint parse_listen_address(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos)
    throw invalid("--listen wants HOST:PORT (e.g. 127.0.0.1:8080), got \"" + text + "\"", "listen");
  std::string host = text.substr(0, colon);
  const std::string port_text = text.substr(colon + 1);
  unsigned port = 0;
  auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || p != port_text.data() + port_text.size() || port > 65535)
    throw invalid("--listen port must be 0 to 65535, got \"" + port_text + "\"", "listen");
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  if (host == "localhost") host = "127.0.0.1";
  boost::system::error_code addr_ec;
  auto address = asio::ip::make_address(host, addr_ec);
  if (addr_ec) throw invalid("--listen host must be an IP address, got \"" + host + "\"", "listen");
  return {address, static_cast<unsigned short>(port)};
}

Server::Server(asio::io_context& io, Api& api, ServerOptions options)
    : io_(io), api_(api), options_(options) {}

Server::~Server() = default;

tcp::endpoint Server::listen(const tcp::endpoint& endpoint) {
  acceptor_ = std::make_unique<tcp::acceptor>(asio::make_strand(io_));
  if (const auto ec = net::listen_on(*acceptor_, endpoint))
    throw Error(ErrorKind::invalid, "cannot listen on " + endpoint.address().to_string() + ":" +
                                        std::to_string(endpoint.port()) + ": " + ec.message());
  asio::co_spawn(acceptor_->get_executor(), accept_loop(), asio::detached);
  return acceptor_->local_endpoint();
}

asio::awaitable<void> Server::accept_loop() {
  while (!stopping_) {
    auto [ec, socket] =
        co_await acceptor_->async_accept(asio::make_strand(io_), as_tuple_awaitable);
    if (ec) {
      if (stopping_ || ec == asio::error::operation_aborted) break;
      log::warn("accept failed", {{"error", ec.message()}});
      continue;
    }
    auto connection = std::make_shared<Connection>(std::move(socket));
    {
      std::lock_guard lock(mutex_);
      connections_.insert(connection);
    }
    asio::co_spawn(connection->stream.get_executor(), serve(connection), asio::detached);
  }
}

asio::awaitable<void> Server::serve(std::shared_ptr<Connection> connection) {
  auto& stream = connection->stream;
  beast::flat_buffer buffer;
  bool first = true;
  while (!stopping_) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(options_.body_limit);
    parser.header_limit(16 * 1024);
    stream.expires_after(first ? options_.request_timeout : options_.idle_timeout);
    first = false;
    auto [ec, bytes] = co_await http::async_read(stream, buffer, parser, as_tuple_awaitable);
    (void)bytes;
    if (ec) {
      if (ec == http::error::body_limit || ec == http::error::header_limit) {
        // The rest of the body is not read: answer and close.
        ProblemContext pctx{"", "", 11};
        auto res = problem(
            http::status::payload_too_large,
            "the request body is larger than " + std::to_string(options_.body_limit) + " bytes",
            pctx);
        res.keep_alive(false);
        stream.expires_after(options_.write_timeout);
        co_await http::async_write(stream, res, as_tuple_awaitable);
      } else if (ec != http::error::end_of_stream && ec != beast::error::timeout &&
                 ec != asio::error::operation_aborted && ec != asio::error::connection_reset &&
                 ec != asio::error::eof) {
        ProblemContext pctx{"", "", 11};
        auto res =
            problem(http::status::bad_request, "malformed HTTP request: " + ec.message(), pctx);
        res.keep_alive(false);
        stream.expires_after(options_.write_timeout);
        co_await http::async_write(stream, res, as_tuple_awaitable);
      }
      break;
    }
    connection->busy = true;
    Request request = parser.release();
    const bool keep_alive = request.keep_alive();
    stream.expires_never();  // the handler's own time is bounded by its database work
    Response response = co_await api_.handle(std::move(request), connection->peer);
    response.keep_alive(keep_alive && !stopping_);
    stream.expires_after(options_.write_timeout);
    auto [write_ec, written] = co_await http::async_write(stream, response, as_tuple_awaitable);
    (void)written;
    connection->busy = false;
    if (write_ec || !response.keep_alive()) break;
  }
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  stream.close();
  forget(connection);
}

void Server::forget(const std::shared_ptr<Connection>& connection) {
  {
    std::lock_guard lock(mutex_);
    connections_.erase(connection);
  }
  maybe_finish_shutdown();
}

void Server::shutdown(std::function<void()> done) {
  std::vector<std::shared_ptr<Connection>> open;
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || grace_timer_) return;
    grace_timer_ = std::make_unique<asio::steady_timer>(io_, options_.shutdown_grace);
    on_stopped_ = std::move(done);
    stopping_ = true;
    open.assign(connections_.begin(), connections_.end());
  }
  if (acceptor_)
    asio::post(acceptor_->get_executor(), [this] {
      boost::system::error_code ignored;
      acceptor_->close(ignored);
    });
  // Idle connections are closed now; busy ones finish their request and then close.
  for (auto& c : open)
    asio::post(c->stream.get_executor(), [c] {
      boost::system::error_code ignored;
      if (!c->busy) c->stream.socket().cancel(ignored);
    });
  grace_timer_->async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    std::vector<std::shared_ptr<Connection>> left;
    {
      std::lock_guard lock(mutex_);
      left.assign(connections_.begin(), connections_.end());
    }
    if (!left.empty())
      log::warn("closing connections still open after the grace period", {{"count", left.size()}});
    for (auto& c : left)
      asio::post(c->stream.get_executor(), [c] {
        boost::system::error_code ignored;
        c->stream.socket().cancel(ignored);
      });
  });
  maybe_finish_shutdown();
}

void Server::maybe_finish_shutdown() {
  std::function<void()> done;
  {
    std::lock_guard lock(mutex_);
    if (!stopping_ || !connections_.empty() || !on_stopped_) return;
    done = std::move(on_stopped_);
    on_stopped_ = nullptr;
  }
  asio::post(io_, [this] { grace_timer_->cancel(); });
  done();
}

}  // namespace ironhold::web

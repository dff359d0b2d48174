#pragma once
// The socket side of the HTTP service: accept, read with a timeout and a body limit, hand the
// request to the Api, write, keep-alive. Graceful shutdown stops accepting, closes idle
// connections and lets requests in flight finish.
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "web/api.hpp"

namespace ironhold::net {
class ByteStream;
}

namespace ironhold::web {

struct ServerOptions {
  std::size_t body_limit = 1024 * 1024;
  // The body of a route that streams it (a firmware image upload) may be this big.
  std::uint64_t upload_limit = 8ull << 30;
  std::chrono::milliseconds request_timeout{30'000};  // to read one whole request
  std::chrono::milliseconds idle_timeout{60'000};     // between keep-alive requests
  std::chrono::milliseconds write_timeout{30'000};
  std::chrono::milliseconds shutdown_grace{10'000};  // for requests in flight at shutdown
  // HTTPS with this context (see make_server_tls_context); null: plain HTTP.
  std::shared_ptr<asio::ssl::context> tls;
};

// "127.0.0.1:8080", "[::1]:8080", ":8080" (all addresses); throws ironhold::Error (invalid).
asio::ip::tcp::endpoint parse_listen_address(const std::string& text);

class Server {
 public:
  Server(asio::io_context& io, Api& api, ServerOptions options = {});
  ~Server();

  // Binds (port 0 picks a free port) and starts accepting; returns the bound endpoint.
  asio::ip::tcp::endpoint listen(const asio::ip::tcp::endpoint& endpoint);
  // Stops accepting, closes idle connections, and calls `done` once every connection is gone
  // (or the grace period ran out). Safe to call from any thread, once.
  void shutdown(std::function<void()> done);

  struct Connection;

 private:
  asio::awaitable<void> accept_loop();
  // A connection's life: the TLS handshake when the server has a certificate, its requests, the
  // close.
  asio::awaitable<void> serve(std::shared_ptr<Connection> connection);
  // Request after request on one connection, plain or TLS, until one is the last.
  asio::awaitable<void> serve_requests(Connection& connection);
  // Answers a request that is not read to its end (too big, malformed); the connection closes.
  asio::awaitable<void> write_problem(net::ByteStream& stream, http::status status,
                                      std::string detail);
  // Writes the reply (its streamed body too); false when the connection broke.
  asio::awaitable<bool> write_reply(Connection& connection, Reply& reply);
  void forget(const std::shared_ptr<Connection>& connection);
  void maybe_finish_shutdown();
  std::function<void(boost::system::error_code)> close_after_grace();

  asio::io_context& io_;
  Api& api_;
  ServerOptions options_;
  std::unique_ptr<asio::ip::tcp::acceptor> acceptor_;
  std::mutex mutex_;
  std::set<std::shared_ptr<Connection>> connections_;
  std::atomic<bool> stopping_{false};
  std::function<void()> on_stopped_;
  // The shutdown's grace period. A timer is not safe to touch from two threads at once, and the
  // shutdown starts it while connections closing on the I/O threads may cancel it: every use goes
  // through this strand.
  asio::strand<asio::io_context::executor_type> grace_strand_{asio::make_strand(io_)};
  std::unique_ptr<asio::steady_timer> grace_timer_;
};

}  // namespace ironhold::web

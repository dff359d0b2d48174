#pragma once
// Plain HTTP that only sends browsers and scripts to HTTPS (--http-redirect): every request is
// answered 308 with the same path on https://<the host it asked for>:<the HTTPS port>, and no
// request is ever served over it.
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <memory>

#include "web/http.hpp"

namespace ironhold::web {

class RedirectServer {
 public:
  RedirectServer(asio::io_context& io, unsigned short https_port);
  ~RedirectServer();
  asio::ip::tcp::endpoint listen(const asio::ip::tcp::endpoint& endpoint);
  void close();

 private:
  asio::awaitable<void> accept_loop();

  asio::io_context& io_;
  unsigned short https_port_;
  std::unique_ptr<asio::ip::tcp::acceptor> acceptor_;
  std::atomic<bool> closed_{false};
};

// Where a plain-HTTP request for `target` with Host `host` is sent: "https://host:port/target".
// Empty when the Host header is missing or not a host name.
std::string https_location(std::string_view host, unsigned short https_port,
                           std::string_view target);

}  // namespace ironhold::web

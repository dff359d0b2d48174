#pragma once
// The socket side of one simulated BMC: a Beast coroutine HTTP(S) server on its own acceptor, read
// with a timeout and a body limit (by target: a push to the MultipartHttpPushUri carries an
// image), the request handed to BmcState, keep-alive. The BMC's faults
// (latency, resets, silence, drip, redirects, bad bodies) are acted out here, on the wire.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <random>

#include "sim/redfish/bmc_state.hpp"
#include "sim/tls_cert.hpp"

namespace ironhold::net {
class ByteStream;
}

namespace boost::asio::ssl {
class context;
}

namespace ironhold::sim::redfish {

struct ServerLimits {
  std::size_t body_limit = 64 * 1024;             // every request but a push
  std::size_t push_body_limit = max_image_bytes;  // a POST to the BMC's MultipartHttpPushUri
  std::chrono::milliseconds request_timeout{30'000};
  std::chrono::milliseconds idle_timeout{60'000};
  std::chrono::milliseconds write_timeout{30'000};
};

class RedfishServer {
 public:
  // tls: serve HTTPS with a self-signed certificate generated for the listen address (or the one
  // given to set_certificate before listen()).
  RedfishServer(boost::asio::io_context& io, BmcState& state, bool tls, ServerLimits limits = {});
  ~RedfishServer();

  // The certificate new TLS connections get; connections already open keep theirs. Thread-safe.
  // Throws ironhold::Error (invalid) for a certificate/key OpenSSL refuses.
  void set_certificate(const SelfSignedCert& cert);
  SelfSignedCert certificate() const;  // empty before listen() unless set

  // Binds (port 0 picks a free one) and starts accepting; returns the bound endpoint. Throws
  // ironhold::Error (invalid) when the address cannot be bound.
  boost::asio::ip::tcp::endpoint listen(const boost::asio::ip::tcp::endpoint& endpoint);
  // Stops accepting; open connections end with the io_context.
  void close();
  bool tls() const { return want_tls_; }

 private:
  boost::asio::awaitable<void> accept_loop();
  // A connection's life, plain or TLS (`ssl` not null): the handshake, its requests, the close.
  boost::asio::awaitable<void> serve(boost::asio::ip::tcp::socket socket,
                                     std::shared_ptr<boost::asio::ssl::context> ssl);
  boost::asio::awaitable<void> serve_requests(net::ByteStream& stream);
  std::size_t body_limit_for(const http::request_header<>& header) const;
  boost::asio::awaitable<bool> answer(net::ByteStream& stream, const Request& request);
  std::shared_ptr<boost::asio::ssl::context> ssl_context() const;
  bool roll_error(double rate);

  boost::asio::io_context& io_;
  BmcState& state_;
  bool want_tls_;
  ServerLimits limits_;
  mutable std::mutex ssl_mutex_;
  std::shared_ptr<boost::asio::ssl::context> ssl_;  // shared: open connections keep the old one
  SelfSignedCert cert_;
  std::mt19937_64 rng_{std::random_device{}()};  // the error_rate dice; io thread only
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;
};

}  // namespace ironhold::sim::redfish

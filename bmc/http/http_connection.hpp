#pragma once
// One connection of AsioHttpClient to a server: a TCP socket with, for https, OpenSSL driven
// directly over it (non-blocking, waiting on Asio's reactor when OpenSSL asks to) with a context
// shared by every connection (tls_client_contexts.hpp). A connection is used by one request at a
// time, on that request's strand; a kept-alive one waits in the client's pool in between.
#include <openssl/ssl.h>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "bmc/http/tls_client_contexts.hpp"
#include "bmc/http/tls_policy.hpp"

namespace ironhold::bmc::http {

// Where a URL points: what a connection is opened to and what the request names.
struct Origin {
  bool tls = false;
  std::string host;         // IPv6 literals without their brackets
  std::string port;         // the scheme's default when the URL names none
  std::string host_header;  // as the URL writes it, less a default port: "[::1]:8443"
  std::string target;       // path and query, "/" at least
};

// nullopt, with `error` set, for anything but http(s)://host[:port][/path][?query][#fragment].
std::optional<Origin> parse_origin(std::string_view url, std::string& error);

enum class IoStatus { ok, eof, failed, tls_failed, pin_mismatch, aborted };

struct IoResult {
  IoStatus status = IoStatus::ok;
  std::string message;
  bool ok() const { return status == IoStatus::ok; }
};

class HttpConnection {
 public:
  using Strand = boost::asio::strand<boost::asio::any_io_executor>;

  explicit HttpConnection(Strand strand);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Resolves the host, connects, and for https shakes hands under `policy`: a certificate the
  // policy refuses ends it before anything else is written. On the strand given at construction.
  boost::asio::awaitable<IoResult> open(const Origin& origin, const TlsPolicy& policy);
  // Writes all of `data`, adding what left to `written` (for "was the request sent?").
  boost::asio::awaitable<IoResult> write_all(std::string_view data, std::size_t& written);
  // Reads at least one byte into `buffer`, `got` of them; eof when the server closed.
  boost::asio::awaitable<IoResult> read_some(char* buffer, std::size_t size, std::size_t& got);

  // Whether an idle kept-alive connection can take another request: not if the server closed it
  // (or sent anything unasked, which would be read as the next answer).
  bool still_usable();
  // Frees OpenSSL's read and write buffers while the connection waits for its next request.
  // SSL_MODE_RELEASE_BUFFERS alone did not always: measured after sweeps that reconnected,
  // every kept-alive connection still held a 16 KiB read buffer (bench/redfish_sweep --pause-s).
  void release_buffers();
  // Ends whatever it is waiting for (a deadline passed, the client is shutting down); it is
  // unusable afterwards. On the connection's current strand.
  void abort();

  // The strand of the request using the connection now; its timers and aborts run there.
  void use_on(Strand strand);
  const Strand& strand() const { return strand_; }

  // The leaf certificate's SHA-256 (https only), checked at the handshake.
  const std::optional<std::string>& fingerprint() const { return fingerprint_; }
  bool aborted() const { return aborted_; }

 private:
  template <class Call>
  boost::asio::awaitable<IoResult> tls_call(Call call, int& result);
  IoResult tls_error(int result, int code);

  Strand strand_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::ip::tcp::resolver resolver_;
  SSL* ssl_ = nullptr;
  HandshakeCheck check_;
  std::optional<std::string> fingerprint_;
  bool aborted_ = false;
};

}  // namespace ironhold::bmc::http

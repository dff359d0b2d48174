#include "bmc/http/http_connection.hpp"

#include <openssl/err.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <cstring>

namespace ironhold::bmc::http {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

std::string openssl_errors() {
  std::string out;
  while (const unsigned long code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    if (!out.empty()) out += "; ";
    out += text;
  }
  return out;
}

}  // namespace

std::optional<Origin> parse_origin(std::string_view url, std::string& error) {
  Origin o;
  std::string_view rest;
  if (url.substr(0, 8) == "https://") {
    o.tls = true;
    rest = url.substr(8);
  } else if (url.substr(0, 7) == "http://") {
    rest = url.substr(7);
  } else {
    error = "unsupported URL (http:// or https:// only): " + std::string(url);
    return std::nullopt;
  }
  const std::size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  std::string_view target = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  if (const auto hash = target.find('#'); hash != std::string_view::npos)
    target = target.substr(0, hash);
  if (authority.find('@') != std::string_view::npos) {
    error = "credentials in a URL are not sent: " + std::string(url);
    return std::nullopt;
  }
  std::string_view host = authority, port;
  if (authority.substr(0, 1) == "[") {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) {
      error = "unterminated IPv6 address in " + std::string(url);
      return std::nullopt;
    }
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') {
        error = "malformed host in " + std::string(url);
        return std::nullopt;
      }
      port = authority.substr(close + 2);
    }
  } else if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  const std::string_view default_port = o.tls ? "443" : "80";
  if (port.empty()) port = default_port;
  if (host.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string_view::npos ||
      std::stoul(std::string(port)) == 0 || std::stoul(std::string(port)) > 65535) {
    error = "malformed host or port in " + std::string(url);
    return std::nullopt;
  }
  for (const char c : target)
    if (static_cast<unsigned char>(c) <= ' ') {
      error = "a URL with spaces or control characters: " + std::string(url);
      return std::nullopt;
    }
  o.host = std::string(host);
  o.port = std::string(port);
  const bool bracketed = host.find(':') != std::string_view::npos;
  o.host_header = bracketed ? "[" + o.host + "]" : o.host;
  if (port != default_port) o.host_header += ":" + o.port;
  o.target =
      target.empty() || target.front() != '/' ? "/" + std::string(target) : std::string(target);
  return o;
}

HttpConnection::HttpConnection(Strand strand)
    : strand_(strand), socket_(strand), resolver_(strand) {}

HttpConnection::~HttpConnection() {
  if (ssl_ != nullptr) SSL_free(ssl_);  // the socket is Asio's: SSL_set_fd does not own it
}

void HttpConnection::use_on(Strand strand) {
  strand_ = std::move(strand);
}

void HttpConnection::abort() {
  aborted_ = true;
  resolver_.cancel();
  error_code ignored;
  socket_.close(ignored);  // its pending waits end with operation_aborted
}

bool HttpConnection::still_usable() {
  if (aborted_ || !socket_.is_open()) return false;
  if (ssl_ != nullptr && SSL_pending(ssl_) > 0) return false;
  char byte;
  const ssize_t n = ::recv(socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

void HttpConnection::release_buffers() {
  if (ssl_ != nullptr) SSL_free_buffers(ssl_);  // refuses, harmlessly, if data is pending
}

asio::awaitable<IoResult> HttpConnection::open(const Origin& origin, const TlsPolicy& policy) {
  error_code ec;
  const auto address = asio::ip::make_address(origin.host, ec);
  const bool literal = !ec;
  if (literal) {
    const tcp::endpoint endpoint(address, static_cast<unsigned short>(std::stoul(origin.port)));
    co_await socket_.async_connect(endpoint, asio::redirect_error(asio::use_awaitable, ec));
  } else {
    ec.clear();
    const auto found = co_await resolver_.async_resolve(
        origin.host, origin.port, asio::redirect_error(asio::use_awaitable, ec));
    if (aborted_) co_return IoResult{IoStatus::aborted, "aborted"};
    if (ec)
      co_return IoResult{IoStatus::failed, "cannot resolve " + origin.host + ": " + ec.message()};
    co_await asio::async_connect(socket_, found, asio::redirect_error(asio::use_awaitable, ec));
  }
  if (aborted_) co_return IoResult{IoStatus::aborted, "aborted"};
  if (ec)
    co_return IoResult{IoStatus::failed,
                       "cannot connect to " + origin.host_header + ": " + ec.message()};
  socket_.set_option(tcp::no_delay(true), ec);
  socket_.set_option(asio::socket_base::keep_alive(true), ec);
  socket_.non_blocking(true, ec);
  if (!origin.tls) co_return IoResult{};

  std::string problem;
  SSL_CTX* ctx = client_context(policy, problem);
  if (ctx == nullptr) co_return IoResult{IoStatus::tls_failed, problem};
  ssl_ = SSL_new(ctx);
  SSL_CTX_free(ctx);  // the SSL holds its own reference
  if (ssl_ == nullptr || SSL_set_fd(ssl_, socket_.native_handle()) != 1)
    co_return IoResult{IoStatus::tls_failed, "OpenSSL could not set up the connection"};
  check_.pinned_sha256_hex =
      policy.mode == TlsPolicy::Mode::pin ? policy.pinned_sha256_hex : std::nullopt;
  attach_handshake_check(ssl_, check_);
  if (!literal) SSL_set_tlsext_host_name(ssl_, origin.host.c_str());
  if (policy.mode == TlsPolicy::Mode::ca) {
    // The chain is verified by the context; the name (or address) is this connection's.
    if (literal)
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), origin.host.c_str());
    else
      SSL_set1_host(ssl_, origin.host.c_str());
  }
  int result = 0;
  IoResult shaken = co_await tls_call([this] { return SSL_connect(ssl_); }, result);
  if (!shaken.ok()) {
    if (check_.pin_mismatch)
      co_return IoResult{IoStatus::pin_mismatch, "certificate " +
                                                     check_.leaf_sha256_hex.value_or("?") +
                                                     " does not match the pinned " +
                                                     check_.pinned_sha256_hex.value_or("?")};
    if (shaken.status == IoStatus::aborted) co_return shaken;
    const long verify = SSL_get_verify_result(ssl_);
    std::string message = "TLS handshake with " + origin.host_header + " failed";
    if (policy.mode == TlsPolicy::Mode::ca && verify != X509_V_OK)
      message += std::string(": ") + X509_verify_cert_error_string(verify);
    else if (!shaken.message.empty())
      message += ": " + shaken.message;
    co_return IoResult{IoStatus::tls_failed, message};
  }
  fingerprint_ = check_.leaf_sha256_hex ? check_.leaf_sha256_hex : peer_fingerprint(ssl_);
  co_return IoResult{};
}

template <class Call>
asio::awaitable<IoResult> HttpConnection::tls_call(Call call, int& result) {
  for (;;) {
    if (aborted_) co_return IoResult{IoStatus::aborted, "aborted"};
    ERR_clear_error();
    result = call();
    if (result > 0) co_return IoResult{};
    const int code = SSL_get_error(ssl_, result);
    error_code ec;
    if (code == SSL_ERROR_WANT_READ)
      co_await socket_.async_wait(tcp::socket::wait_read,
                                  asio::redirect_error(asio::use_awaitable, ec));
    else if (code == SSL_ERROR_WANT_WRITE)
      co_await socket_.async_wait(tcp::socket::wait_write,
                                  asio::redirect_error(asio::use_awaitable, ec));
    else
      co_return tls_error(result, code);
    if (aborted_) co_return IoResult{IoStatus::aborted, "aborted"};
    if (ec) co_return IoResult{IoStatus::failed, ec.message()};
  }
}

IoResult HttpConnection::tls_error(int result, int code) {
  if (code == SSL_ERROR_ZERO_RETURN) return {IoStatus::eof, "closed by the server"};
  if (code == SSL_ERROR_SYSCALL) {
    std::string errors = openssl_errors();
    if (result == 0 || errno == 0) return {IoStatus::eof, "closed by the server"};
    return {IoStatus::failed, errors.empty() ? std::string(std::strerror(errno)) : errors};
  }
  return {IoStatus::tls_failed, openssl_errors()};
}

asio::awaitable<IoResult> HttpConnection::write_all(std::string_view data, std::size_t& written) {
  std::size_t offset = 0;
  while (offset < data.size()) {
    const char* from = data.data() + offset;
    const std::size_t left = data.size() - offset;
    std::size_t n = 0;
    if (ssl_ == nullptr) {
      error_code ec;
      n = co_await socket_.async_write_some(asio::buffer(from, left),
                                            asio::redirect_error(asio::use_awaitable, ec));
      if (aborted_) co_return IoResult{IoStatus::aborted, "aborted"};
      if (ec) co_return IoResult{IoStatus::failed, ec.message()};
    } else {
      int result = 0;
      const int chunk = static_cast<int>(std::min<std::size_t>(left, 1 << 20));
      IoResult r = co_await tls_call([&] { return SSL_write(ssl_, from, chunk); }, result);
      if (!r.ok()) co_return r;
      n = static_cast<std::size_t>(result);
    }
    offset += n;
    written += n;
  }
  co_return IoResult{};
}

asio::awaitable<IoResult> HttpConnection::read_some(char* buffer, std::size_t size,
                                                    std::size_t& got) {
  got = 0;
  if (ssl_ == nullptr) {
    error_code ec;
    got = co_await socket_.async_read_some(asio::buffer(buffer, size),
                                           asio::redirect_error(asio::use_awaitable, ec));
    if (aborted_) co_return IoResult{IoStatus::aborted, "aborted"};
    if (ec == asio::error::eof) co_return IoResult{IoStatus::eof, "closed by the server"};
    if (ec) co_return IoResult{IoStatus::failed, ec.message()};
    co_return IoResult{};
  }
  int result = 0;
  const int chunk = static_cast<int>(std::min<std::size_t>(size, 1 << 20));
  IoResult r = co_await tls_call([&] { return SSL_read(ssl_, buffer, chunk); }, result);
  if (r.ok()) got = static_cast<std::size_t>(result);
  co_return r;
}

}  // namespace ironhold::bmc::http

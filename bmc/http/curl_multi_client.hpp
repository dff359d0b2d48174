#pragma once
// An asynchronous HTTP(S) client for BMCs: libcurl's multi interface driven by an Asio executor
// (curl_multi_socket_action with socket and timer callbacks), so thousands of BMCs share a few
// threads. Every libcurl call for one host happens on one strand. Connections are kept alive and,
// by default, one connection per host is kept: BMCs are small and many drop a second connection.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "bmc/http/request_pacer.hpp"
#include "bmc/http/tls_policy.hpp"

namespace ironhold::bmc::http {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// One part of a multipart/form-data body (RFC 7578). Its bytes are `data`, or the file at `file`
// read while libcurl sends it, so that an image of hundreds of megabytes is never held in memory.
struct FormPart {
  std::string name;
  std::string content_type;  // empty: none sent
  std::string data;
  std::string file;      // a local path; when set, `data` is ignored
  std::string filename;  // the Content-Disposition filename; empty: none
};

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  HeaderList headers;
  std::string body;
  // When not empty, the body is these parts as multipart/form-data (with its Content-Type and
  // boundary set by the transport) and `body` is ignored.
  std::vector<FormPart> form;
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds total_timeout{30000};
  std::size_t max_body = 8 << 20;
  TlsPolicy tls;
  // A request rate to keep (BmcHttpClient paces each attempt; the transport ignores it).
  Pace pace;
};

struct HttpResponse {
  long status = 0;
  HeaderList headers;  // names as the server sent them, in order
  std::string body;
  // The leaf certificate fingerprint of the connection that answered (every TLS response), so a
  // first contact's certificate can be pinned by the caller.
  std::optional<std::string> peer_fingerprint;

  // The first header called `name` (case-insensitive).
  std::optional<std::string> header(std::string_view name) const;
};

enum class HttpErrorKind {
  connect_failed,
  timeout,
  tls_pin_mismatch,
  tls_failed,
  too_large,
  protocol,
  cancelled
};

std::string_view to_string(HttpErrorKind kind);

struct HttpError {
  HttpErrorKind kind = HttpErrorKind::protocol;
  std::string message;
  // Whether any request bytes were written: a request that may have been received must not be
  // replayed unless it is idempotent.
  bool request_sent = false;
};

class HttpResult {
 public:
  // Default-constructible because co_spawn needs it; an empty result reads as cancelled.
  HttpResult() : value_(HttpError{HttpErrorKind::cancelled, "no result", false}) {}
  HttpResult(HttpResponse response) : value_(std::move(response)) {}
  HttpResult(HttpError error) : value_(std::move(error)) {}
  bool ok() const { return std::holds_alternative<HttpResponse>(value_); }
  explicit operator bool() const { return ok(); }
  HttpResponse& response() { return std::get<HttpResponse>(value_); }
  const HttpResponse& response() const { return std::get<HttpResponse>(value_); }
  const HttpError& error() const { return std::get<HttpError>(value_); }

 private:
  std::variant<HttpResponse, HttpError> value_;
};

class CurlMultiClient {
 public:
  struct Options {
    long max_host_connections = 1;   // CURLMOPT_MAX_HOST_CONNECTIONS; further requests queue
    long max_total_connections = 0;  // 0: no limit
    // The connection cache (CURLMOPT_MAXCONNECTS). libcurl's default follows the transfers in
    // flight (4 per transfer), so between sweeps it would close most kept-alive BMC connections
    // and every poll would pay a TLS handshake again: keep one per BMC instead. 0: libcurl's.
    long max_idle_connections = 20'000;
    // Independent multi handles; a host always uses the same one. libcurl 7.88 walks every
    // connection of a multi handle each time a transfer is removed from it, so a single handle
    // makes a request cost O(fleet); shards bound that walk, and they run on separate strands.
    // The two connection limits above are shared out evenly between the shards.
    std::size_t shards = 64;
  };

  // All libcurl work runs on a strand made from `executor`.
  explicit CurlMultiClient(boost::asio::any_io_executor executor);
  CurlMultiClient(boost::asio::any_io_executor executor, Options options);
  // Completes transfers still in flight with `cancelled`. The executor must still run for that.
  ~CurlMultiClient();
  CurlMultiClient(const CurlMultiClient&) = delete;
  CurlMultiClient& operator=(const CurlMultiClient&) = delete;

  // Never throws for network or protocol failures: they come back classified in HttpResult.
  boost::asio::awaitable<HttpResult> request(HttpRequest request);

  class Impl;

 private:
  Impl& shard_for(std::string_view url) const;

  std::vector<std::shared_ptr<Impl>> shards_;
};

// The part of a URL that names one server (scheme, host and port), or the whole text when it has
// no scheme; what requests are sharded by.
std::string_view url_origin(std::string_view url);

}  // namespace ironhold::bmc::http

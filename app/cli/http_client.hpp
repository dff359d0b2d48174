#pragma once
// A blocking JSON client for the CLI on libcurl's easy interface. One client keeps one easy
// handle, so paging through a long list reuses one connection. Server errors (RFC 9457
// problem+json) become ApiError carrying the problem's detail; failures below HTTP (refused,
// timeout, TLS) become TransportError naming the URL that could not be reached.
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/error.hpp"

namespace ironhold::cli {

struct HttpResponse {
  long status = 0;
  std::string content_type;
  std::string body;
};

// The server answered with an error status. what() is the problem's detail, else its title.
class ApiError : public Error {
 public:
  ApiError(long status, std::string message, std::string field, std::string request_id);
  long status() const noexcept { return status_; }
  const std::string& request_id() const noexcept { return request_id_; }

 private:
  long status_;
  std::string request_id_;
};

// No HTTP answer at all: connection refused, DNS, timeout, TLS, a body over the size limit.
class TransportError : public Error {
 public:
  explicit TransportError(std::string message)
      : Error(ErrorKind::unavailable, std::move(message)) {}
};

struct HttpSettings {
  std::string base_url;                // "http://127.0.0.1:8080", no trailing slash needed
  std::optional<std::string> token;    // sent as "Authorization: Bearer <token>"
  std::optional<std::string> ca_file;  // PEM bundle to verify the server's certificate
  std::chrono::seconds connect_timeout{10};
  std::chrono::seconds timeout{60};
  std::size_t max_body = 64u << 20;  // a larger answer is a TransportError, not an OOM
};

class HttpClient {
 public:
  explicit HttpClient(HttpSettings settings);
  ~HttpClient();
  HttpClient(HttpClient&&) noexcept;
  HttpClient& operator=(HttpClient&&) noexcept;

  // One exchange; target is the path and query ("/api/v1/nodes?limit=5"). Returns any HTTP
  // status; throws only TransportError.
  HttpResponse send(std::string_view method, std::string_view target,
                    const nlohmann::json* body = nullptr);

  // These throw ApiError for a status >= 400, and Error for a success answer that is not JSON.
  // A 204 yields a null json.
  nlohmann::json get(std::string_view target);
  nlohmann::json post(std::string_view target, const nlohmann::json& body);
  nlohmann::json patch(std::string_view target, const nlohmann::json& body);
  nlohmann::json put(std::string_view target, const nlohmann::json& body);
  nlohmann::json del(std::string_view target);
  // POSTs the bytes of the file at `path` as application/octet-stream, read from disk as curl
  // sends them (an image of gigabytes is never held whole), with `headers` ("Name: value") added.
  // No overall time limit: only a transfer stalled for a minute is given up.
  nlohmann::json post_file(std::string_view target, const std::string& path,
                           const std::vector<std::string>& headers);

  // GETs `target` and writes a success answer's body to `out` as it arrives (an export of
  // 100,000 nodes is never held whole); returns the answer's headers (names in lower case) and
  // the byte count. Throws ApiError for a status >= 400 (its body is read as a problem), and
  // TransportError when the body breaks off or `out` cannot be written.
  struct Download {
    long status = 0;
    std::map<std::string, std::string> headers;
    long long bytes = 0;
  };
  Download download(std::string_view target, std::FILE* out);

  const std::string& base_url() const noexcept { return settings_.base_url; }

 private:
  nlohmann::json call(std::string_view method, std::string_view target, const nlohmann::json* body);
  struct FileBody;
  HttpResponse exchange(std::string_view method, std::string_view target,
                        const nlohmann::json* body, FileBody* file,
                        const std::vector<std::string>& extra_headers);
  nlohmann::json parse_answer(std::string_view method, std::string_view target, HttpResponse r);

  struct Handle;
  HttpSettings settings_;
  std::unique_ptr<Handle> handle_;
};

// Percent-encodes everything but RFC 3986 unreserved characters, for path segments and query
// values alike.
std::string url_encode(std::string_view text);

// The ApiError for an error answer: detail, else title, else a message built from the status.
ApiError api_error(const HttpResponse& response);

}  // namespace ironhold::cli

#pragma once
// Bodies too big to hold in memory, in both directions: a route marked `streams_body` reads its
// request body piece by piece as it arrives (a firmware image upload), and a handler may answer
// with a BodySource that the server writes out piece by piece (the image's download, the change
// stream).
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "web/connection_upgrade.hpp"
#include "web/http.hpp"

namespace ironhold::web {

class BodyReader {
 public:
  virtual ~BodyReader() = default;
  // Up to out.size() bytes of the body; 0 at its end. Throws ironhold::Error for a body that
  // breaks off, stalls past the request timeout or grows past the upload limit.
  virtual asio::awaitable<std::size_t> read(std::span<char> out) = 0;
  // The declared length, when the client sent Content-Length.
  virtual std::optional<std::uint64_t> content_length() const = 0;
};

class BodySource {
 public:
  virtual ~BodySource() = default;
  // The next piece of the body; empty at its end. Never throws: on a failure it returns empty
  // with failed() set, and the server cuts the connection (the client sees a short body).
  virtual asio::awaitable<std::string> next() = 0;
  virtual bool failed() const = 0;
  // Asks a body without a natural end (an event stream) to end now: next() returns the end, at
  // once if it is waiting. The server calls it, on the connection's executor, when it shuts down.
  virtual void finish() {}
};

// What the API answers: the response, and its body as a source when it is streamed. The response
// carries the headers, and Content-Length when the length is known; without it the server sends
// the body chunked (HTTP/1.1) or closes the connection after it (HTTP/1.0).
// With an upgrade, the server writes no response: the upgrade answers the request itself (a
// WebSocket's 101) and keeps the connection.
struct Reply {
  Response response;
  std::shared_ptr<BodySource> body;
  std::shared_ptr<ConnectionUpgrade> upgrade;
};

}  // namespace ironhold::web

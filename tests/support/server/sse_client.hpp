#pragma once
// A Server-Sent Events client for tests: GET over a real loopback socket, the response header,
// then the body read as it comes (chunked) and parsed into events the way the HTML standard says
// a browser's EventSource does, including the last event id it would send on reconnection.
#include <boost/asio/io_context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ironhold::test {

struct SseEvent {
  std::string id;  // the last event id after this event (empty: none yet)
  std::string type = "message";
  std::string data;
  nlohmann::json json() const { return nlohmann::json::parse(data); }
};

class SseClient {
 public:
  // Connects and reads the response header. `headers` may hold Last-Event-ID.
  SseClient(unsigned short port, const std::string& target, const std::optional<std::string>& token,
            const std::map<std::string, std::string>& headers = {});
  ~SseClient();

  int status() const { return status_; }
  std::string header(const std::string& name) const;  // lower-case name
  // The whole body, when the response is not a stream (a problem+json).
  std::string read_body();

  // The next event. Waits at most `cap` (a safety net so that a broken stream fails the test
  // instead of hanging it), then throws; throws too when the stream ends first.
  SseEvent next(std::chrono::seconds cap = std::chrono::seconds(60));
  // Events up to and including the first that `last` accepts.
  std::vector<SseEvent> until(const std::function<bool(const SseEvent&)>& last,
                              std::chrono::seconds cap = std::chrono::seconds(60));
  // Reads until the server sends this comment (": connected" opens a new stream); the events
  // read meanwhile are kept for next().
  void until_comment(const std::string& text, std::chrono::seconds cap = std::chrono::seconds(60));
  // Reads to the end of the body; true when it ended as a body should (the last chunk), false
  // when the connection was cut.
  bool ends_cleanly(std::chrono::seconds cap = std::chrono::seconds(60));

  // What EventSource would send as Last-Event-ID now.
  const std::string& last_event_id() const { return last_event_id_; }
  const std::vector<std::string>& comments() const { return comments_; }
  // Closes the connection, as a client that goes away.
  void close();

 private:
  // Reads more of the body into text_; false at its end.
  bool read_more(std::chrono::steady_clock::time_point deadline);
  // Takes a complete event off text_, if there is one.
  std::optional<SseEvent> parse_event();

  boost::asio::io_context io_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  boost::beast::http::response_parser<boost::beast::http::buffer_body> parser_;
  int status_ = 0;
  std::map<std::string, std::string> headers_;
  std::string text_;  // body bytes not yet parsed
  bool ended_ = false;
  bool broken_ = false;
  // The parser state of the event stream.
  std::string last_event_id_;
  std::string data_, type_;
  bool has_data_ = false;
  std::vector<std::string> comments_;
  std::deque<SseEvent> pending_;  // read by until_comment(), not yet returned by next()
};

}  // namespace ironhold::test

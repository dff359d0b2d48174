#pragma once
// A WebSocket client for tests over a plain loopback TCP socket: opens the upgrade with the
// headers a test gives, then sends and reads messages with a deadline on every wait, so that a
// broken server fails the test instead of hanging it. It uses the CLI's client (net::WebSocket,
// compiled once for the program); the browser test is the independent peer of the server.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ironhold::net {
class ByteStream;
class WebSocket;
}  // namespace ironhold::net

namespace ironhold::test {

struct WsMessage {
  std::string data;
  bool binary = false;
  nlohmann::json json() const { return nlohmann::json::parse(data); }
};

class WebSocketClient {
 public:
  // Connects to 127.0.0.1:port and asks to upgrade `target`. A refused upgrade is not an error:
  // upgraded() is then false and status()/body() give the server's answer.
  WebSocketClient(unsigned short port, const std::string& target,
                  const std::map<std::string, std::string>& headers);
  ~WebSocketClient();

  bool upgraded() const { return upgraded_; }
  int status() const { return status_; }
  const std::string& body() const { return body_; }

  void send_binary(std::string_view bytes);
  void send_text(std::string_view text);
  // The next message; nothing once the server closed (close_code() says how). Throws when
  // nothing came within `cap`.
  std::optional<WsMessage> next(std::chrono::seconds cap = std::chrono::seconds(30));
  // Reads until the binary output received so far shows `text`; false when the connection closed
  // first. Text messages read meanwhile are kept (controls()).
  bool read_until(std::string_view text, std::chrono::seconds cap = std::chrono::seconds(60));
  // The next text message (binary ones read meanwhile go to output()); nothing once closed.
  std::optional<nlohmann::json> next_control(std::chrono::seconds cap = std::chrono::seconds(30));
  // Reads until the server closes; false when it did not within `cap`.
  bool until_closed(std::chrono::seconds cap = std::chrono::seconds(30));

  const std::string& output() const { return output_; }
  const std::vector<nlohmann::json>& controls() const { return controls_; }
  std::optional<int> close_code() const { return close_code_; }
  const std::string& close_reason() const { return close_reason_; }
  // The closing handshake from this side.
  void close();

 private:
  // Runs `operation` (a coroutine) to its end; throws when it has not ended by `deadline`.
  template <class Operation>
  void run(Operation operation, std::chrono::steady_clock::time_point deadline);

  boost::asio::io_context io_;
  std::unique_ptr<net::ByteStream> stream_;
  std::unique_ptr<net::WebSocket> ws_;
  bool upgraded_ = false;
  int status_ = 0;
  std::string body_;
  std::string output_;
  std::vector<nlohmann::json> controls_;
  std::vector<nlohmann::json> pending_controls_;
  std::optional<int> close_code_;
  std::string close_reason_;
  bool closed_ = false;
};

}  // namespace ironhold::test

#pragma once
// WebSocket (RFC 6455) over a ByteStream: the server side of an upgraded HTTP connection (a node's
// serial console in the browser) and the client side (`ironhold console`). Beast's websocket stream
// is instantiated once, in websocket.cpp, over ByteStream, plain or TLS as chosen at run time.
#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ironhold::net {

class ByteStream;

// Whether a request asks to become a WebSocket (GET, Connection: upgrade, Upgrade: websocket).
bool is_websocket_upgrade(const boost::beast::http::request_header<>& request);

struct WebSocketMessage {
  std::string data;
  bool binary = false;  // a binary frame's bytes; else UTF-8 text
};

struct WebSocketOptions {
  std::chrono::seconds handshake_timeout{10};  // the opening and the closing handshake
  // Silence this long ends the connection; a ping goes out at half of it, which any live peer
  // answers, so an idle but healthy console stays open.
  std::chrono::seconds idle_timeout{60};
  std::size_t read_message_max = 1 << 20;
};

// The close frame a peer sent: its status code and reason.
struct WebSocketClose {
  std::uint16_t code = 0;
  std::string reason;
};

class WebSocket {
 public:
  // `stream` must outlive the WebSocket; its owner closes it afterwards (the WebSocket's own
  // closing handshake leaves the TCP or TLS connection to it).
  explicit WebSocket(ByteStream& stream, WebSocketOptions options = {});
  ~WebSocket();
  WebSocket(const WebSocket&) = delete;
  WebSocket& operator=(const WebSocket&) = delete;

  // Server: answers the upgrade request with 101 Switching Protocols.
  boost::asio::awaitable<boost::system::error_code> accept(
      const boost::beast::http::request_header<>& request);
  // Client: sends the upgrade request for `target` on `host` with `headers` (Authorization). When
  // the server answers with anything but 101, `refusal` gets its status and body.
  boost::asio::awaitable<boost::system::error_code> handshake(
      const std::string& host, const std::string& target,
      const std::vector<std::pair<std::string, std::string>>& headers,
      boost::beast::http::response<boost::beast::http::string_body>* refusal = nullptr);

  // The next message; nothing once the connection is closed (peer_close() then says how, when the
  // peer sent a close frame) or broken.
  boost::asio::awaitable<std::optional<WebSocketMessage>> read();
  // One message. Only one write (or close) at a time; it may run while a read waits.
  boost::asio::awaitable<boost::system::error_code> write(std::string_view data, bool binary);
  // The closing handshake with `code` (1000 normal, 1001 going away, 1011 server error) and a
  // reason of at most 123 bytes; the read waiting for the peer's answer then ends.
  boost::asio::awaitable<boost::system::error_code> close(std::uint16_t code,
                                                          std::string_view reason);
  bool is_open() const;
  std::optional<WebSocketClose> peer_close() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ironhold::net

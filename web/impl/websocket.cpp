#include "web/impl/websocket.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>

#include "web/impl/byte_stream.hpp"

namespace ironhold::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace http = beast::http;
using boost::system::error_code;
constexpr auto as_tuple_awaitable = asio::as_tuple(asio::use_awaitable);

namespace {

// The ByteStream by reference, as Beast's websocket stream wants its next layer: a type of its own
// so that the teardown and close customization points below are found for it (by ADL).
class StreamRef {
 public:
  using executor_type = ByteStream::executor_type;
  explicit StreamRef(ByteStream& stream) : stream_(&stream) {}
  executor_type get_executor() const { return stream_->get_executor(); }
  ByteStream& stream() const { return *stream_; }

  template <class MutableBufferSequence, class Token>
  auto async_read_some(const MutableBufferSequence& buffers, Token&& token) {
    return stream_->async_read_some(buffers, std::forward<Token>(token));
  }
  template <class ConstBufferSequence, class Token>
  auto async_write_some(const ConstBufferSequence& buffers, Token&& token) {
    return stream_->async_write_some(buffers, std::forward<Token>(token));
  }

 private:
  ByteStream* stream_;
};

// After the closing handshake Beast would shut the TCP connection down itself. The connection is
// its owner's (the HTTP server sends TLS's close_notify before it closes), so the teardown only
// says it is done.
[[maybe_unused]] void teardown(beast::role_type, StreamRef&, error_code& ec) {
  ec = {};
}

template <class TeardownHandler>
void async_teardown(beast::role_type, StreamRef& ref, TeardownHandler&& handler) {
  asio::post(ref.get_executor(),
             beast::bind_front_handler(std::forward<TeardownHandler>(handler), error_code{}));
}

// A timed-out WebSocket closes the socket under it.
[[maybe_unused]] void beast_close_socket(StreamRef& ref) {
  error_code ignored;
  ref.stream().lowest().socket().close(ignored);
}

}  // namespace

bool is_websocket_upgrade(const http::request_header<>& request) {
  return websocket::is_upgrade(request);
}

struct WebSocket::Impl {
  Impl(ByteStream& stream, const WebSocketOptions& options) : ws(StreamRef(stream)) {
    websocket::stream_base::timeout timeout{};
    timeout.handshake_timeout = options.handshake_timeout;
    timeout.idle_timeout = options.idle_timeout;
    timeout.keep_alive_pings = true;
    ws.set_option(timeout);
    ws.read_message_max(options.read_message_max);
  }
  websocket::stream<StreamRef> ws;
  beast::flat_buffer buffer;
  std::optional<WebSocketClose> peer_close;
};

WebSocket::WebSocket(ByteStream& stream, WebSocketOptions options)
    : impl_(std::make_unique<Impl>(stream, options)) {}

WebSocket::~WebSocket() = default;

asio::awaitable<error_code> WebSocket::accept(const http::request_header<>& request) {
  impl_->ws.set_option(websocket::stream_base::decorator(
      [](websocket::response_type& res) { res.set(http::field::server, "ironhold"); }));
  http::request<http::empty_body> upgrade(request);
  auto [ec] = co_await impl_->ws.async_accept(upgrade, as_tuple_awaitable);
  co_return ec;
}

asio::awaitable<error_code> WebSocket::handshake(
    const std::string& host, const std::string& target,
    const std::vector<std::pair<std::string, std::string>>& headers,
    http::response<http::string_body>* refusal) {
  impl_->ws.set_option(websocket::stream_base::decorator([headers](websocket::request_type& req) {
    req.set(http::field::user_agent, "ironhold");
    for (const auto& [name, value] : headers) req.set(name, value);
  }));
  websocket::response_type response;
  auto [ec] = co_await impl_->ws.async_handshake(response, host, target, as_tuple_awaitable);
  if (ec && refusal) *refusal = std::move(response);
  co_return ec;
}

asio::awaitable<std::optional<WebSocketMessage>> WebSocket::read() {
  impl_->buffer.clear();
  auto [ec, bytes] = co_await impl_->ws.async_read(impl_->buffer, as_tuple_awaitable);
  (void)bytes;
  if (ec) {
    if (ec == websocket::error::closed) {
      const auto& reason = impl_->ws.reason();
      impl_->peer_close = WebSocketClose{static_cast<std::uint16_t>(reason.code),
                                         std::string(reason.reason.data(), reason.reason.size())};
    }
    co_return std::nullopt;
  }
  WebSocketMessage message;
  message.binary = impl_->ws.got_binary();
  message.data = beast::buffers_to_string(impl_->buffer.data());
  co_return message;
}

asio::awaitable<error_code> WebSocket::write(std::string_view data, bool binary) {
  impl_->ws.binary(binary);
  auto [ec, bytes] =
      co_await impl_->ws.async_write(asio::buffer(data.data(), data.size()), as_tuple_awaitable);
  (void)bytes;
  co_return ec;
}

asio::awaitable<error_code> WebSocket::close(std::uint16_t code, std::string_view reason) {
  // The reason goes in a control frame: at most 123 bytes.
  websocket::close_reason why(code);
  const auto kept = reason.substr(0, 123);
  why.reason.assign(kept.data(), kept.size());
  auto [ec] = co_await impl_->ws.async_close(why, as_tuple_awaitable);
  co_return ec;
}

bool WebSocket::is_open() const {
  return impl_->ws.is_open();
}

std::optional<WebSocketClose> WebSocket::peer_close() const {
  return impl_->peer_close;
}

}  // namespace ironhold::net

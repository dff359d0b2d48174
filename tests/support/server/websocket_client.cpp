#include "tests/support/server/websocket_client.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/beast/http/string_body.hpp>
#include <stdexcept>

#include "web/impl/byte_stream.hpp"
#include "web/impl/websocket.hpp"

namespace ironhold::test {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

template <class Operation>
void WebSocketClient::run(Operation operation, std::chrono::steady_clock::time_point deadline) {
  bool done = false;
  std::exception_ptr failure;
  asio::co_spawn(io_, std::move(operation), [&](std::exception_ptr e) {
    failure = e;
    done = true;
  });
  io_.restart();
  while (!done) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      boost::system::error_code ignored;
      stream_->lowest().socket().close(ignored);
      io_.restart();
      io_.run_for(std::chrono::seconds(5));  // lets the cut operation finish
      throw std::runtime_error("the WebSocket server did not answer in time");
    }
    io_.run_one_for(deadline - now);
  }
  if (failure) std::rethrow_exception(failure);
}

WebSocketClient::WebSocketClient(unsigned short port, const std::string& target,
                                 const std::map<std::string, std::string>& headers) {
  boost::beast::tcp_stream tcp_stream(io_);
  tcp_stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  stream_ = net::plain_stream(std::move(tcp_stream));
  ws_ = std::make_unique<net::WebSocket>(*stream_);
  std::vector<std::pair<std::string, std::string>> header_list(headers.begin(), headers.end());
  http::response<http::string_body> refusal;
  boost::system::error_code result;
  const std::string host = "127.0.0.1:" + std::to_string(port);
  auto handshake = [&]() -> asio::awaitable<void> {
    result = co_await ws_->handshake(host, target, header_list, &refusal);
  };
  run(handshake(), std::chrono::steady_clock::now() + std::chrono::seconds(60));
  upgraded_ = !result;
  status_ = upgraded_ ? 101 : refusal.result_int();
  body_ = refusal.body();
  if (!upgraded_ && status_ == 0)
    throw std::runtime_error("WebSocket handshake failed: " + result.message());
}

WebSocketClient::~WebSocketClient() {
  ws_.reset();
  boost::system::error_code ignored;
  stream_->lowest().socket().close(ignored);
}

void WebSocketClient::send_binary(std::string_view bytes) {
  auto send = [&]() -> asio::awaitable<void> { co_await ws_->write(bytes, /*binary=*/true); };
  run(send(), std::chrono::steady_clock::now() + std::chrono::seconds(30));
}

void WebSocketClient::send_text(std::string_view text) {
  auto send = [&]() -> asio::awaitable<void> { co_await ws_->write(text, /*binary=*/false); };
  run(send(), std::chrono::steady_clock::now() + std::chrono::seconds(30));
}

std::optional<WsMessage> WebSocketClient::next(std::chrono::seconds cap) {
  if (closed_) return std::nullopt;
  std::optional<net::WebSocketMessage> got;
  auto read = [&]() -> asio::awaitable<void> { got = co_await ws_->read(); };
  run(read(), std::chrono::steady_clock::now() + cap);
  if (!got) {
    closed_ = true;
    if (const auto close = ws_->peer_close()) {
      close_code_ = close->code;
      close_reason_ = close->reason;
    }
    return std::nullopt;
  }
  WsMessage message{std::move(got->data), got->binary};
  if (message.binary)
    output_ += message.data;
  else
    controls_.push_back(message.json());
  return message;
}

bool WebSocketClient::read_until(std::string_view text, std::chrono::seconds cap) {
  const auto deadline = std::chrono::steady_clock::now() + cap;
  while (output_.find(text) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::seconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw std::runtime_error("never saw \"" + std::string(text) + "\"");
    auto message = next(left);
    if (!message) return false;
    if (!message->binary) pending_controls_.push_back(message->json());
  }
  return true;
}

std::optional<nlohmann::json> WebSocketClient::next_control(std::chrono::seconds cap) {
  if (!pending_controls_.empty()) {
    auto first = pending_controls_.front();
    pending_controls_.erase(pending_controls_.begin());
    return first;
  }
  for (;;) {
    auto message = next(cap);
    if (!message) return std::nullopt;
    if (!message->binary) return message->json();
  }
}

bool WebSocketClient::until_closed(std::chrono::seconds cap) {
  const auto deadline = std::chrono::steady_clock::now() + cap;
  while (!closed_) {
    const auto left = std::chrono::duration_cast<std::chrono::seconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    auto message = next(left);
    if (message && !message->binary) pending_controls_.push_back(message->json());
  }
  return true;
}

void WebSocketClient::close() {
  if (closed_) return;
  auto closing = [&]() -> asio::awaitable<void> {
    co_await ws_->close(1000, "the test closed it");
    // The server's answer to the close, and anything it still sent, are read to the end.
    while (co_await ws_->read()) {
    }
  };
  run(closing(), std::chrono::steady_clock::now() + std::chrono::seconds(30));
  closed_ = true;
}

}  // namespace ironhold::test

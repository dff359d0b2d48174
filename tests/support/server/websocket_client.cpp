#include "tests/support/server/websocket_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <stdexcept>

namespace ironhold::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace http = beast::http;
using tcp = asio::ip::tcp;

WebSocketClient::WebSocketClient(unsigned short port, const std::string& target,
                                 const std::map<std::string, std::string>& headers)
    : ws_(io_) {
  beast::get_lowest_layer(ws_).connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  ws_.set_option(websocket::stream_base::decorator([headers](websocket::request_type& req) {
    for (const auto& [name, value] : headers) req.set(name, value);
  }));
  websocket::response_type response;
  bool done = false;
  beast::error_code result;
  ws_.async_handshake(response, "127.0.0.1:" + std::to_string(port), target,
                      [&](beast::error_code ec) {
                        result = ec;
                        done = true;
                      });
  run_until_done(done, std::chrono::steady_clock::now() + std::chrono::seconds(60));
  status_ = response.result_int();
  body_ = response.body();
  upgraded_ = !result;
  if (result && result != websocket::error::upgrade_declined)
    throw std::runtime_error("WebSocket handshake failed: " + result.message());
}

WebSocketClient::~WebSocketClient() {
  beast::error_code ignored;
  beast::get_lowest_layer(ws_).socket().close(ignored);
}

void WebSocketClient::run_until_done(bool& done, std::chrono::steady_clock::time_point deadline) {
  io_.restart();
  while (!done) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      beast::get_lowest_layer(ws_).cancel();
      io_.restart();
      io_.run_for(std::chrono::seconds(5));  // lets the cancelled operation finish
      throw std::runtime_error("the WebSocket server did not answer in time");
    }
    io_.run_one_for(deadline - now);
  }
}

void WebSocketClient::send_binary(std::string_view bytes) {
  ws_.binary(true);
  ws_.write(asio::buffer(bytes.data(), bytes.size()));
}

void WebSocketClient::send_text(std::string_view text) {
  ws_.text(true);
  ws_.write(asio::buffer(text.data(), text.size()));
}

std::optional<WsMessage> WebSocketClient::next(std::chrono::seconds cap) {
  if (closed_) return std::nullopt;
  beast::flat_buffer buffer;
  bool done = false;
  beast::error_code result;
  ws_.async_read(buffer, [&](beast::error_code ec, std::size_t) {
    result = ec;
    done = true;
  });
  run_until_done(done, std::chrono::steady_clock::now() + cap);
  if (result) {
    closed_ = true;
    if (result == websocket::error::closed) {
      close_code_ = ws_.reason().code;
      close_reason_ = std::string(ws_.reason().reason.data(), ws_.reason().reason.size());
    }
    return std::nullopt;
  }
  WsMessage message{beast::buffers_to_string(buffer.data()), ws_.got_binary()};
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
  bool done = false;
  ws_.async_close(websocket::close_code::normal, [&](beast::error_code) { done = true; });
  run_until_done(done, std::chrono::steady_clock::now() + std::chrono::seconds(30));
  closed_ = true;
}

}  // namespace ironhold::test

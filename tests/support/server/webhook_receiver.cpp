#include "tests/support/server/webhook_receiver.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <random>

namespace ironhold::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct WebhookReceiver::State {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  mutable std::mutex mutex;
  mutable std::condition_variable arrived;
  std::vector<Received> received;
  std::atomic<bool> stopping{false};
};

unsigned short free_loopback_port(const std::string& address) {
  asio::io_context io;
  tcp::acceptor a(io, tcp::endpoint(asio::ip::make_address(address), 0));
  return a.local_endpoint().port();
}

std::string private_loopback_address() {
  std::random_device random;
  std::uniform_int_distribution<int> octet(2, 254);
  return "127." + std::to_string(octet(random)) + "." + std::to_string(octet(random)) + "." +
         std::to_string(octet(random));
}

WebhookReceiver::WebhookReceiver(unsigned short port, const std::string& address)
    : state_(std::make_shared<State>()) {
  const tcp::endpoint at(asio::ip::make_address(address), port);
  state_->acceptor.open(at.protocol());
  state_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  state_->acceptor.bind(at);
  state_->acceptor.listen();
  port_ = state_->acceptor.local_endpoint().port();
  thread_ = std::thread([state = state_, this] {
    while (!state->stopping) {
      boost::system::error_code ec;
      tcp::socket socket(state->io);
      state->acceptor.accept(socket, ec);
      if (ec || state->stopping) break;
      // One request per connection, answered, then closed: enough for a notifier.
      beast::flat_buffer buffer;
      http::request<http::string_body> request;
      http::read(socket, buffer, request, ec);
      if (ec) continue;
      Received r;
      r.target = std::string(request.target());
      r.body = request.body();
      for (const auto& field : request) {
        std::string name(field.name_string());
        for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        r.headers[name] = std::string(field.value());
      }
      http::response<http::string_body> response{static_cast<http::status>(status_.load()),
                                                 request.version()};
      response.keep_alive(false);
      response.prepare_payload();
      http::write(socket, response, ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
      {
        std::lock_guard lock(state->mutex);
        state->received.push_back(std::move(r));
      }
      state->arrived.notify_all();
    }
  });
}

WebhookReceiver::~WebhookReceiver() {
  state_->stopping = true;
  boost::system::error_code ec;
  // Wake the blocking accept with a connection of our own.
  asio::io_context io;
  tcp::socket poke(io);
  poke.connect(state_->acceptor.local_endpoint(ec), ec);
  if (thread_.joinable()) thread_.join();
}

std::vector<WebhookReceiver::Received> WebhookReceiver::received() const {
  std::lock_guard lock(state_->mutex);
  return state_->received;
}

bool WebhookReceiver::wait_for(std::size_t count, std::chrono::seconds cap) const {
  std::unique_lock lock(state_->mutex);
  return state_->arrived.wait_for(lock, cap, [&] { return state_->received.size() >= count; });
}

}  // namespace ironhold::test

#include "sim/cloud/api_server.hpp"

#include <strings.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "inventory/util/percent_decode.hpp"
#include "web/impl/listen.hpp"

namespace ironhold::sim::cloud {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr auto as_tuple_awaitable = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kBodyLimit = 1 << 20;
constexpr std::chrono::seconds kRequestTimeout{30};
constexpr std::chrono::seconds kIdleTimeout{60};

ApiRequest to_api_request(const http::request<http::string_body>& req) {
  ApiRequest out;
  out.method = std::string(req.method_string());
  out.target = std::string(req.target());
  for (const auto& field : req)
    out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  out.body = req.body();
  if (const auto host = req.find(http::field::host); host != req.end())
    out.host = std::string(host->value());
  return out;
}

http::response<http::string_body> to_response(const ApiReply& reply, bool keep_alive) {
  http::response<http::string_body> res{static_cast<http::status>(reply.status), 11};
  res.set(http::field::server, "Ironhold simulated cloud");
  if (!reply.body.empty() || !reply.content_type.empty())
    res.set(http::field::content_type, reply.content_type);
  for (const auto& [name, value] : reply.headers) res.insert(name, value);
  res.body() = reply.body;
  res.keep_alive(keep_alive);
  res.prepare_payload();
  return res;
}

}  // namespace

struct ApiServer::State : std::enable_shared_from_this<ApiServer::State> {
  State(asio::io_context& io, ApiHandler handler) : io(io), handler(std::move(handler)) {}
  asio::io_context& io;
  ApiHandler handler;
  std::unique_ptr<tcp::acceptor> acceptor;

  ApiReply handle(const ApiRequest& request) {
    try {
      return handler(request);
    } catch (const std::exception& e) {
      // A simulator bug must answer like a broken server, not take the simulator down.
      log::warn("simulated cloud: handler failed",
                {{"target", request.target}, {"error", e.what()}});
      return ApiReply{500, "application/json", {}, R"({"message":"simulator error"})"};
    }
  }

  asio::awaitable<void> accept_loop(std::shared_ptr<State> self) {
    for (;;) {
      auto [ec, socket] = co_await acceptor->async_accept(as_tuple_awaitable);
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor->is_open()) break;
        continue;
      }
      auto session = serve(self, std::move(socket));
      asio::co_spawn(io, std::move(session), asio::detached);
    }
  }

  static asio::awaitable<void> serve(std::shared_ptr<State> self, tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buffer;
    bool first = true;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(kBodyLimit);
      stream.expires_after(first ? std::chrono::seconds(kRequestTimeout) : kIdleTimeout);
      first = false;
      auto [ec, bytes] = co_await http::async_read(stream, buffer, parser, as_tuple_awaitable);
      (void)bytes;
      if (ec) break;
      const auto request = parser.release();
      const ApiRequest api_request = to_api_request(request);
      const ApiReply reply = self->handle(api_request);
      if (reply.delay.count() > 0) {
        asio::steady_timer timer(stream.get_executor());
        timer.expires_after(reply.delay);
        auto [timer_ec] = co_await timer.async_wait(as_tuple_awaitable);
        if (timer_ec) break;
      }
      auto response = to_response(reply, request.keep_alive());
      stream.expires_after(kRequestTimeout);
      auto [write_ec, written] = co_await http::async_write(stream, response, as_tuple_awaitable);
      (void)written;
      if (write_ec || !response.keep_alive()) break;
    }
    boost::system::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }
};

std::optional<std::string> ApiRequest::header(std::string_view name) const {
  for (const auto& [n, v] : headers)
    if (n.size() == name.size() && strncasecmp(n.data(), name.data(), n.size()) == 0) return v;
  return std::nullopt;
}

std::string_view ApiRequest::path() const {
  const std::string_view t = target;
  return t.substr(0, t.find('?'));
}

std::string_view ApiRequest::query() const {
  const std::string_view t = target;
  const auto q = t.find('?');
  return q == std::string_view::npos ? std::string_view{} : t.substr(q + 1);
}

ApiServer::ApiServer(asio::io_context& io, ApiHandler handler)
    : state_(std::make_shared<State>(io, std::move(handler))) {}

ApiServer::~ApiServer() {
  close();
}

tcp::endpoint ApiServer::listen(const tcp::endpoint& endpoint) {
  state_->acceptor = std::make_unique<tcp::acceptor>(state_->io);
  if (const auto ec = net::listen_on(*state_->acceptor, endpoint))
    throw invalid("cannot listen on " + endpoint.address().to_string() + ":" +
                      std::to_string(endpoint.port()) + ": " + ec.message(),
                  "listen");
  auto loop = state_->accept_loop(state_);
  asio::co_spawn(state_->io, std::move(loop), asio::detached);
  return state_->acceptor->local_endpoint();
}

void ApiServer::close() {
  if (!state_->acceptor) return;
  boost::system::error_code ignored;
  state_->acceptor->close(ignored);
}

std::vector<std::pair<std::string, std::string>> parse_form(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!text.empty()) {
    const auto amp = text.find('&');
    std::string_view pair = text.substr(0, amp);
    text = amp == std::string_view::npos ? std::string_view{} : text.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    std::string key(pair.substr(0, eq));
    std::string value(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1));
    for (auto* s : {&key, &value})
      for (char& c : *s)
        if (c == '+') c = ' ';
    std::string k, v;
    if (!percent_decode(key, k)) k = key;
    if (!percent_decode(value, v)) v = value;
    out.emplace_back(std::move(k), std::move(v));
  }
  return out;
}

}  // namespace ironhold::sim::cloud

#include "sim/redfish/redfish_server.hpp"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <cctype>

#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "sim/redfish/errors.hpp"
#include "sim/redfish/wire_faults.hpp"
#include "sim/tls_cert.hpp"
#include "web/impl/byte_stream.hpp"
#include "web/impl/listen.hpp"

namespace ironhold::sim::redfish {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;
using wire::as_tuple_awaitable;

namespace {

// The longest a "timeout" BMC keeps a connection open saying nothing.
constexpr std::chrono::minutes silent_for{10};

std::shared_ptr<ssl::context> make_context(const SelfSignedCert& cert) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  boost::system::error_code ec;
  ctx->use_certificate_chain(asio::buffer(cert.cert_pem), ec);
  if (!ec) ctx->use_private_key(asio::buffer(cert.key_pem), ssl::context::pem, ec);
  if (ec)
    throw invalid("the simulated BMC's certificate or key is unusable: " + ec.message(),
                  "certificate");
  return ctx;
}

// Whether a client waits for "100 Continue" before it sends the body (RFC 9110, 10.1.1), as curl
// does for large uploads.
bool expects_continue(const http::request_header<>& header) {
  const auto expect = header.find(http::field::expect);
  if (expect == header.end()) return false;
  const std::string_view value = expect->value();
  return value.size() == 12 &&
         std::equal(value.begin(), value.end(), "100-continue", [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

bool is_json(const Response& response) {
  const auto type = response.find(http::field::content_type);
  return type != response.end() && type->value().starts_with("application/json") &&
         !response.body().empty();
}

}  // namespace

RedfishServer::RedfishServer(asio::io_context& io, BmcState& state, bool tls, ServerLimits limits)
    : io_(io), state_(state), want_tls_(tls), limits_(limits) {}

RedfishServer::~RedfishServer() = default;

void RedfishServer::set_certificate(const SelfSignedCert& cert) {
  auto ctx = make_context(cert);
  std::lock_guard lock(ssl_mutex_);
  ssl_ = std::move(ctx);
  cert_ = cert;
}

SelfSignedCert RedfishServer::certificate() const {
  std::lock_guard lock(ssl_mutex_);
  return cert_;
}

std::shared_ptr<ssl::context> RedfishServer::ssl_context() const {
  std::lock_guard lock(ssl_mutex_);
  return ssl_;
}

bool RedfishServer::roll_error(double rate) {
  if (rate <= 0) return false;
  return std::uniform_real_distribution<double>(0, 1)(rng_) < rate;
}

tcp::endpoint RedfishServer::listen(const tcp::endpoint& endpoint) {
  if (want_tls_ && !ssl_context())
    set_certificate(make_self_signed_cert(endpoint.address().to_string()));
  acceptor_ = std::make_unique<tcp::acceptor>(io_);
  if (const auto ec = net::listen_on(*acceptor_, endpoint))
    throw invalid("cannot listen on " + endpoint.address().to_string() + ":" +
                      std::to_string(endpoint.port()) + ": " + ec.message(),
                  "listen");
  auto loop = accept_loop();
  asio::co_spawn(io_, std::move(loop), asio::detached);
  return acceptor_->local_endpoint();
}

void RedfishServer::close() {
  if (!acceptor_) return;
  boost::system::error_code ignored;
  acceptor_->close(ignored);
}

asio::awaitable<void> RedfishServer::accept_loop() {
  for (;;) {
    auto [ec, socket] = co_await acceptor_->async_accept(as_tuple_awaitable);
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor_->is_open()) break;
      log::warn("simulated BMC: accept failed", {{"error", ec.message()}});
      continue;
    }
    auto session = serve(std::move(socket), want_tls_ ? ssl_context() : nullptr);
    asio::co_spawn(io_, std::move(session), asio::detached);
  }
}

asio::awaitable<void> RedfishServer::serve(tcp::socket socket, std::shared_ptr<ssl::context> ssl) {
  beast::tcp_stream tcp(std::move(socket));
  std::unique_ptr<net::ByteStream> stream =
      ssl ? net::tls_stream(std::move(tcp), *ssl) : net::plain_stream(std::move(tcp));
  stream->lowest().expires_after(limits_.request_timeout);
  auto handshaking = stream->handshake(/*as_server=*/true);
  if (co_await std::move(handshaking)) co_return;
  co_await serve_requests(*stream);
  if (ssl) {
    stream->lowest().expires_after(limits_.write_timeout);
    auto closing = stream->shutdown();
    co_await std::move(closing);  // peers often just close: nothing to do about it
  } else {
    boost::system::error_code ignored;
    stream->lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
  }
}

std::size_t RedfishServer::body_limit_for(const http::request_header<>& header) const {
  const std::string& push = state_.push_uri();
  if (header.method() == http::verb::post && !push.empty() &&
      resource_path(header.target()) == push)
    return limits_.push_body_limit;
  return limits_.body_limit;
}

asio::awaitable<void> RedfishServer::serve_requests(net::ByteStream& stream) {
  beast::flat_buffer buffer;
  bool first = true;
  for (;;) {
    http::request_parser<http::string_body> parser;
    // The header first, then the body under the limit its target allows. The parser compares a
    // Content-Length with its limit as the header ends: the larger limit stands until then.
    parser.body_limit(std::max(limits_.body_limit, limits_.push_body_limit));
    parser.header_limit(16 * 1024);
    stream.lowest().expires_after(first ? limits_.request_timeout : limits_.idle_timeout);
    first = false;
    auto [header_ec, header_bytes] =
        co_await http::async_read_header(stream, buffer, parser, as_tuple_awaitable);
    (void)header_bytes;
    boost::system::error_code ec = header_ec;
    if (!ec) {
      const std::size_t limit = body_limit_for(parser.get());
      parser.body_limit(limit);  // what a chunked body is held to as it comes
      const auto length = parser.content_length();
      if (length && *length > limit) ec = http::error::body_limit;
    }
    if (!ec && !parser.is_done() && expects_continue(parser.get())) {
      http::response<http::empty_body> go_on{http::status::continue_, 11};
      auto [continue_ec, continue_bytes] =
          co_await http::async_write(stream, go_on, as_tuple_awaitable);
      (void)continue_bytes;
      ec = continue_ec;
    }
    if (!ec && !parser.is_done()) {
      auto [body_ec, body_bytes] =
          co_await http::async_read(stream, buffer, parser, as_tuple_awaitable);
      (void)body_bytes;
      ec = body_ec;
    }
    if (ec == http::error::body_limit || ec == http::error::header_limit) {
      auto res = redfish_error(http::status::payload_too_large, "GeneralError",
                               "The request is too large.");
      res.keep_alive(false);
      stream.lowest().expires_after(limits_.write_timeout);
      co_await http::async_write(stream, res, as_tuple_awaitable);
      break;
    }
    if (ec) break;
    Request request = parser.release();
    const bool more = co_await answer(stream, request);
    if (!more) break;
  }
}

// One request's answer, with the BMC's faults acted out; false when the connection is done.
asio::awaitable<bool> RedfishServer::answer(net::ByteStream& stream, const Request& request) {
  const Faults faults = state_.request_received();
  if (faults.latency_ms > 0) {
    asio::steady_timer timer(stream.lowest().get_executor());
    timer.expires_after(std::chrono::milliseconds(faults.latency_ms));
    auto [timer_ec] = co_await timer.async_wait(as_tuple_awaitable);
    if (timer_ec) co_return false;
  }
  if (faults.timeout) {
    co_await wire::stay_silent(stream,
                               std::chrono::duration_cast<std::chrono::milliseconds>(silent_for));
    co_return false;
  }
  if (faults.reset_connections) {
    wire::reset(stream);
    co_return false;
  }
  const std::string target(request.target());
  Response response;
  if (faults.redirect_loop) {
    response = wire::redirect_loop(target);
  } else if (faults.burst_limit > 0 && state_.refuse_burst()) {
    response = service_busy();
  } else if (roll_error(faults.error_rate)) {
    response = wire::server_error(roll_error(0.5));
  } else {
    response = state_.handle(request);
  }
  if (!faults.empty_collections.empty() && request.method() == http::verb::get &&
      response.result() == http::status::ok && is_json(response)) {
    response.body() = empty_members(faults, target, std::move(response.body()));
    response.prepare_payload();
  }
  if ((faults.truncated_json || faults.invalid_json || faults.huge_body_bytes > 0) &&
      is_json(response)) {
    response.body() = mangle_body(faults, std::move(response.body()));
    response.prepare_payload();
  }
  response.set(http::field::server, "Ironhold simulated BMC");
  response.keep_alive(request.keep_alive());
  bool ok = false;
  if (faults.slow_drip_ms > 0) {
    const auto pause = std::chrono::milliseconds(faults.slow_drip_ms);
    ok = co_await wire::drip(stream, response, pause, limits_.write_timeout);
  } else {
    stream.lowest().expires_after(limits_.write_timeout);
    auto [write_ec, written] = co_await http::async_write(stream, response, as_tuple_awaitable);
    (void)written;
    ok = !write_ec;
  }
  co_return ok&& response.keep_alive();
}

}  // namespace ironhold::sim::redfish

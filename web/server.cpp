#include "web/server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <charconv>

#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "web/impl/byte_stream.hpp"
#include "web/impl/listen.hpp"
#include "web/problem.hpp"

namespace ironhold::web {

namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using asio::use_awaitable;
constexpr auto as_tuple_awaitable = asio::as_tuple(asio::use_awaitable);

struct Server::Connection {
  Connection(tcp::socket socket, asio::ssl::context* tls)
      : peer(peer_address(socket)), stream(make_stream(std::move(socket), tls)) {}
  std::string peer;  // the client's address, for routes without a token to record
  std::unique_ptr<net::ByteStream> stream;  // plain, or TLS when the server has a certificate

  // The TCP stream under it all: timeouts, cancelling, closing.
  beast::tcp_stream& lowest() { return stream->lowest(); }

  static std::unique_ptr<net::ByteStream> make_stream(tcp::socket socket, asio::ssl::context* tls) {
    beast::tcp_stream tcp(std::move(socket));
    if (tls) return net::tls_stream(std::move(tcp), *tls);
    return net::plain_stream(std::move(tcp));
  }
  static std::string peer_address(const tcp::socket& socket) {
    boost::system::error_code ec;
    const auto endpoint = socket.remote_endpoint(ec);
    return ec ? std::string("unknown") : endpoint.address().to_string();
  }
  bool busy = false;  // a request is being handled; only touched on the connection's strand
  // The streamed body being written, which shutdown asks to finish (an event stream has no end of
  // its own); only touched on the connection's strand.
  std::shared_ptr<BodySource> streaming;
  // The protocol the connection was upgraded to (a WebSocket), which shutdown asks to end; only
  // touched on the connection's strand.
  std::shared_ptr<ConnectionUpgrade> upgraded;
};

tcp::endpoint parse_listen_address(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos)
    throw invalid("--listen wants HOST:PORT (e.g. 127.0.0.1:8080), got \"" + text + "\"", "listen");
  std::string host = text.substr(0, colon);
  const std::string port_text = text.substr(colon + 1);
  unsigned port = 0;
  auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || p != port_text.data() + port_text.size() || port > 65535)
    throw invalid("--listen port must be 0 to 65535, got \"" + port_text + "\"", "listen");
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  if (host == "localhost") host = "127.0.0.1";
  boost::system::error_code addr_ec;
  auto address = asio::ip::make_address(host, addr_ec);
  if (addr_ec) throw invalid("--listen host must be an IP address, got \"" + host + "\"", "listen");
  return {address, static_cast<unsigned short>(port)};
}

Server::Server(asio::io_context& io, Api& api, ServerOptions options)
    : io_(io), api_(api), options_(options) {}

Server::~Server() = default;

tcp::endpoint Server::listen(const tcp::endpoint& endpoint) {
  acceptor_ = std::make_unique<tcp::acceptor>(asio::make_strand(io_));
  if (const auto ec = net::listen_on(*acceptor_, endpoint))
    throw Error(ErrorKind::invalid, "cannot listen on " + endpoint.address().to_string() + ":" +
                                        std::to_string(endpoint.port()) + ": " + ec.message());
  asio::co_spawn(acceptor_->get_executor(), accept_loop(), asio::detached);
  return acceptor_->local_endpoint();
}

asio::awaitable<void> Server::accept_loop() {
  while (!stopping_) {
    auto [ec, socket] =
        co_await acceptor_->async_accept(asio::make_strand(io_), as_tuple_awaitable);
    if (ec) {
      if (stopping_ || ec == asio::error::operation_aborted) break;
      log::warn("accept failed", {{"error", ec.message()}});
      continue;
    }
    auto connection = std::make_shared<Connection>(std::move(socket), options_.tls.get());
    {
      std::lock_guard lock(mutex_);
      connections_.insert(connection);
    }
    asio::co_spawn(connection->lowest().get_executor(), serve(connection), asio::detached);
  }
}

namespace {

// A streaming route's body, read through the connection's parser as the handler asks for it.
class ParserBodyReader final : public BodyReader {
 public:
  ParserBodyReader(net::ByteStream& stream, beast::flat_buffer& buffer,
                   http::request_parser<http::buffer_body>& parser,
                   std::chrono::milliseconds stall_timeout)
      : stream_(stream), buffer_(buffer), parser_(parser), stall_timeout_(stall_timeout) {}

  asio::awaitable<std::size_t> read(std::span<char> out) override {
    if (parser_.is_done() || out.empty()) co_return 0;
    auto& body = parser_.get().body();
    body.data = out.data();
    body.size = out.size();
    stream_.lowest().expires_after(stall_timeout_);
    auto [ec, bytes] = co_await http::async_read(stream_, buffer_, parser_, as_tuple_awaitable);
    (void)bytes;
    stream_.lowest().expires_never();
    if (ec == http::error::need_buffer) ec = {};
    if (ec == http::error::body_limit)
      throw Error(ErrorKind::too_large, "the upload is larger than this server accepts");
    if (ec)
      throw invalid("the upload broke off after " + std::to_string(received_) +
                    " bytes: " + ec.message());
    const std::size_t n = out.size() - body.size;
    received_ += n;
    co_return n;
  }

  std::optional<std::uint64_t> content_length() const override {
    const auto length = parser_.content_length();
    return length ? std::optional<std::uint64_t>(*length) : std::nullopt;
  }

 private:
  net::ByteStream& stream_;
  beast::flat_buffer& buffer_;
  http::request_parser<http::buffer_body>& parser_;
  std::chrono::milliseconds stall_timeout_;
  std::uint64_t received_ = 0;
};

bool expects_continue(const http::request_header<>& header) {
  const auto expect = header[http::field::expect];
  return beast::iequals(expect, "100-continue");
}

}  // namespace

asio::awaitable<void> Server::serve(std::shared_ptr<Connection> connection) {
  net::ByteStream& stream = *connection->stream;
  beast::tcp_stream& lowest = stream.lowest();
  lowest.expires_after(options_.request_timeout);
  auto handshaking = stream.handshake(/*as_server=*/true);
  if (!(co_await std::move(handshaking))) {
    co_await serve_requests(*connection);
    if (stream.secure()) {
      // close_notify, so that the client can tell the end from a cut.
      lowest.expires_after(options_.write_timeout);
      auto closing = stream.shutdown();
      co_await std::move(closing);
    } else {
      boost::system::error_code ignored;
      lowest.socket().shutdown(tcp::socket::shutdown_send, ignored);
    }
  }
  lowest.close();
  forget(connection);
}

asio::awaitable<void> Server::serve_requests(Connection& connection) {
  net::ByteStream& stream = *connection.stream;
  beast::tcp_stream& lowest = stream.lowest();
  beast::flat_buffer buffer;
  bool first = true;
  while (!stopping_) {
    // The header first: the route decides whether the server reads the body or the handler does.
    http::request_parser<http::empty_body> head;
    head.header_limit(16 * 1024);
    head.body_limit(boost::none);  // checked below, against the limit of the route's kind
    lowest.expires_after(first ? options_.request_timeout : options_.idle_timeout);
    first = false;
    auto [ec, bytes] = co_await http::async_read_header(stream, buffer, head, as_tuple_awaitable);
    (void)bytes;
    if (ec) {
      if (ec == http::error::header_limit) {
        co_await write_problem(stream, http::status::request_header_fields_too_large,
                               "the request header is larger than 16 KiB");
      } else if (ec != http::error::end_of_stream && ec != beast::error::timeout &&
                 ec != asio::error::operation_aborted && ec != asio::error::connection_reset &&
                 ec != asio::error::eof && ec != asio::ssl::error::stream_truncated) {
        co_await write_problem(stream, http::status::bad_request,
                               "malformed HTTP request: " + ec.message());
      }
      break;
    }
    const bool streams = api_.streams_body(head.get().method(), head.get().target());
    const std::uint64_t limit = streams ? options_.upload_limit : options_.body_limit;
    if (const auto length = head.content_length(); length && *length > limit) {
      co_await write_problem(stream, http::status::payload_too_large,
                             "the request body is larger than " + std::to_string(limit) + " bytes");
      break;
    }
    if (expects_continue(head.get())) {
      // curl waits a second for this before it sends a body of more than a kilobyte.
      http::response<http::empty_body> go_on{http::status::continue_, head.get().version()};
      lowest.expires_after(options_.write_timeout);
      auto [continue_ec, sent] = co_await http::async_write(stream, go_on, as_tuple_awaitable);
      (void)sent;
      if (continue_ec) break;
    }
    connection.busy = true;
    bool keep_alive = head.get().keep_alive();
    Reply reply;
    if (streams) {
      http::request_parser<http::buffer_body> parser(std::move(head));
      parser.body_limit(limit);
      ParserBodyReader reader(stream, buffer, parser, options_.request_timeout);
      Request request(parser.get().base());
      lowest.expires_never();
      auto handling = api_.handle(std::move(request), connection.peer, &reader, stream.secure());
      reply = co_await std::move(handling);
      // A body the handler did not read to its end cannot be skipped reliably: close after.
      if (!parser.is_done()) keep_alive = false;
    } else {
      http::request_parser<http::string_body> parser(std::move(head));
      parser.body_limit(limit);
      lowest.expires_after(options_.request_timeout);
      auto [body_ec, body_bytes] =
          co_await http::async_read(stream, buffer, parser, as_tuple_awaitable);
      (void)body_bytes;
      if (body_ec) {
        if (body_ec == http::error::body_limit)
          co_await write_problem(
              stream, http::status::payload_too_large,
              "the request body is larger than " + std::to_string(limit) + " bytes");
        else if (body_ec != beast::error::timeout && body_ec != asio::error::connection_reset &&
                 body_ec != asio::error::eof && body_ec != http::error::end_of_stream)
          co_await write_problem(stream, http::status::bad_request,
                                 "malformed HTTP request: " + body_ec.message());
        break;
      }
      lowest.expires_never();  // the handler's own time is bounded by its database work
      auto handling = api_.handle(parser.release(), connection.peer, nullptr, stream.secure());
      reply = co_await std::move(handling);
    }
    if (reply.upgrade) {
      // The connection is the upgrade's now (a WebSocket), until it ends; then it closes.
      connection.upgraded = reply.upgrade;
      if (stopping_) reply.upgrade->stop();  // the shutdown came while the handler ran
      lowest.expires_never();
      auto running = reply.upgrade->run(stream);
      co_await std::move(running);
      connection.upgraded.reset();
      break;
    }
    reply.response.keep_alive(keep_alive && !stopping_);
    const bool written = co_await write_reply(connection, reply);
    connection.busy = false;
    if (!written || !reply.response.keep_alive()) break;
  }
}

asio::awaitable<void> Server::write_problem(net::ByteStream& stream, http::status status,
                                            std::string detail) {
  // The rest of the request is not read: answer and close.
  ProblemContext pctx{"", "", 11};
  auto res = problem(status, detail, pctx);
  res.keep_alive(false);
  stream.lowest().expires_after(options_.write_timeout);
  auto [ec, written] = co_await http::async_write(stream, res, as_tuple_awaitable);
  (void)ec;
  (void)written;
}

namespace {

// The pieces of a streamed body as the source gives them; false when the connection broke or the
// source failed (the client then sees a short body).
asio::awaitable<bool> write_pieces(net::ByteStream& stream, Reply& reply,
                                   std::chrono::milliseconds write_timeout) {
  http::response<http::buffer_body> res{reply.response.base()};
  res.body().data = nullptr;
  res.body().more = true;
  http::response_serializer<http::buffer_body> serializer{res};
  stream.lowest().expires_after(write_timeout);
  auto [header_ec, header_bytes] =
      co_await http::async_write_header(stream, serializer, as_tuple_awaitable);
  (void)header_bytes;
  if (header_ec) co_return false;
  for (;;) {
    std::string piece = co_await reply.body->next();
    if (reply.body->failed()) co_return false;  // the client sees a short body
    const bool last = piece.empty();
    res.body().data = last ? nullptr : piece.data();
    res.body().size = piece.size();
    res.body().more = !last;
    stream.lowest().expires_after(write_timeout);
    auto [ec, written] = co_await http::async_write(stream, serializer, as_tuple_awaitable);
    (void)written;
    if (ec == http::error::need_buffer) ec = {};
    if (ec) co_return false;
    if (last) co_return true;
  }
}

}  // namespace

asio::awaitable<bool> Server::write_reply(Connection& connection, Reply& reply) {
  net::ByteStream& stream = *connection.stream;
  beast::tcp_stream& lowest = stream.lowest();
  if (!reply.body) {
    lowest.expires_after(options_.write_timeout);
    auto [ec, written] = co_await http::async_write(stream, reply.response, as_tuple_awaitable);
    (void)written;
    co_return !ec;
  }
  // A streamed body: the header, then piece by piece. Without the handler's Content-Length (an
  // event stream) the pieces go as chunks, or, for HTTP/1.0, until the connection closes.
  if (!reply.response.has_content_length()) {
    if (reply.response.version() >= 11)
      reply.response.chunked(true);
    else
      reply.response.keep_alive(false);
    // Each piece is an event someone waits for: out now, not when Nagle sees fit.
    boost::system::error_code ignored;
    lowest.socket().set_option(tcp::no_delay(true), ignored);
  }
  connection.streaming = reply.body;
  if (stopping_) reply.body->finish();  // the shutdown came while the handler ran
  auto writing = write_pieces(stream, reply, options_.write_timeout);
  const bool written = co_await std::move(writing);
  connection.streaming.reset();
  co_return written;
}

void Server::forget(const std::shared_ptr<Connection>& connection) {
  {
    std::lock_guard lock(mutex_);
    connections_.erase(connection);
  }
  maybe_finish_shutdown();
}

void Server::shutdown(std::function<void()> done) {
  std::vector<std::shared_ptr<Connection>> open;
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || grace_timer_) return;
    grace_timer_ = std::make_unique<asio::steady_timer>(grace_strand_, options_.shutdown_grace);
    on_stopped_ = std::move(done);
    stopping_ = true;
    open.assign(connections_.begin(), connections_.end());
    // Posted under the lock: a cancel (maybe_finish_shutdown, which takes it too) comes after.
    asio::post(grace_strand_, [this] { grace_timer_->async_wait(close_after_grace()); });
  }
  if (acceptor_)
    asio::post(acceptor_->get_executor(), [this] {
      boost::system::error_code ignored;
      acceptor_->close(ignored);
    });
  // Idle connections are closed now; busy ones finish their request and then close, and a body
  // without an end of its own (an event stream) ends now.
  for (auto& c : open)
    asio::post(c->lowest().get_executor(), [c] {
      boost::system::error_code ignored;
      if (!c->busy) c->lowest().socket().cancel(ignored);
      if (c->streaming) c->streaming->finish();
      if (c->upgraded) c->upgraded->stop();
    });
  maybe_finish_shutdown();
}

// What the grace timer does when it fires: closes the connections still open.
std::function<void(boost::system::error_code)> Server::close_after_grace() {
  return [this](boost::system::error_code ec) {
    if (ec) return;
    std::vector<std::shared_ptr<Connection>> left;
    {
      std::lock_guard lock(mutex_);
      left.assign(connections_.begin(), connections_.end());
    }
    if (!left.empty())
      log::warn("closing connections still open after the grace period", {{"count", left.size()}});
    for (auto& c : left)
      asio::post(c->lowest().get_executor(), [c] {
        boost::system::error_code ignored;
        c->lowest().socket().cancel(ignored);
        if (c->streaming) c->streaming->finish();
        if (c->upgraded) c->upgraded->stop();
      });
  };
}

void Server::maybe_finish_shutdown() {
  std::function<void()> done;
  {
    std::lock_guard lock(mutex_);
    if (!stopping_ || !connections_.empty() || !on_stopped_) return;
    done = std::move(on_stopped_);
    on_stopped_ = nullptr;
  }
  asio::post(grace_strand_, [this] { grace_timer_->cancel(); });
  done();
}

}  // namespace ironhold::web

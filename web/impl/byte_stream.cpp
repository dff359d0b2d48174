#include "web/impl/byte_stream.hpp"

#include <openssl/ssl.h>

#include <boost/asio/append.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <utility>

namespace ironhold::net {

namespace asio = boost::asio;
namespace beast = boost::beast;

namespace {

constexpr auto as_tuple_awaitable = asio::as_tuple(asio::use_awaitable);

// What the TLS and TCP streams' operations complete to: the caller's handler, run through its own
// executor. They are not given the type-erased handler itself, because Boost 1.81's
// any_completion_executor cannot be required to never block, which Beast's posts ask of the
// handler's executor; the stream's executor can, and the handler is dispatched from it.
class Completion {
 public:
  using executor_type = asio::any_io_executor;
  using cancellation_slot_type = asio::cancellation_slot;

  Completion(ByteStream::IoHandler handler, executor_type executor)
      : handler_(std::move(handler)), executor_(std::move(executor)) {}

  executor_type get_executor() const noexcept { return executor_; }
  cancellation_slot_type get_cancellation_slot() const noexcept {
    return handler_.get_cancellation_slot();
  }

  void operator()(boost::system::error_code ec, std::size_t bytes) {
    asio::dispatch(asio::append(std::move(handler_), ec, bytes));
  }

 private:
  ByteStream::IoHandler handler_;
  executor_type executor_;
};

// The reads and writes, the same for both kinds of stream: handed to the stream underneath.
template <class Stream>
class StreamOf : public ByteStream {
 protected:
  template <class... Args>
  explicit StreamOf(Args&&... args) : stream_(std::forward<Args>(args)...) {}

  void start_read_some(const BufferList<asio::mutable_buffer>& buffers,
                       IoHandler handler) override {
    stream_.async_read_some(buffers, Completion(std::move(handler), get_executor()));
  }
  void start_write_some(const BufferList<asio::const_buffer>& buffers, IoHandler handler) override {
    stream_.async_write_some(buffers, Completion(std::move(handler), get_executor()));
  }

  Stream stream_;
};

class PlainStream final : public StreamOf<beast::tcp_stream> {
 public:
  explicit PlainStream(beast::tcp_stream stream) : StreamOf(std::move(stream)) {}

  beast::tcp_stream& lowest() override { return stream_; }
  bool secure() const override { return false; }
  asio::awaitable<boost::system::error_code> handshake(bool, const std::string&) override {
    co_return boost::system::error_code{};
  }
  asio::awaitable<boost::system::error_code> shutdown() override {
    co_return boost::system::error_code{};
  }
};

class TlsStream final : public StreamOf<beast::ssl_stream<beast::tcp_stream>> {
 public:
  TlsStream(beast::tcp_stream stream, asio::ssl::context& context)
      : StreamOf(std::move(stream), context) {}

  beast::tcp_stream& lowest() override { return beast::get_lowest_layer(stream_); }
  bool secure() const override { return true; }

  asio::awaitable<boost::system::error_code> handshake(bool as_server,
                                                       const std::string& server_name) override {
    if (!as_server && !server_name.empty()) {
      boost::system::error_code not_an_address;
      asio::ip::make_address(server_name, not_an_address);
      if (not_an_address) SSL_set_tlsext_host_name(stream_.native_handle(), server_name.c_str());
    }
    auto [ec] = co_await stream_.async_handshake(
        as_server ? asio::ssl::stream_base::server : asio::ssl::stream_base::client,
        as_tuple_awaitable);
    co_return ec;
  }
  asio::awaitable<boost::system::error_code> shutdown() override {
    auto [ec] = co_await stream_.async_shutdown(as_tuple_awaitable);
    co_return ec;
  }
};

}  // namespace

std::unique_ptr<ByteStream> plain_stream(beast::tcp_stream stream) {
  return std::make_unique<PlainStream>(std::move(stream));
}

std::unique_ptr<ByteStream> tls_stream(beast::tcp_stream stream, asio::ssl::context& context) {
  return std::make_unique<TlsStream>(std::move(stream), context);
}

}  // namespace ironhold::net

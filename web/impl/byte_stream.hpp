#pragma once
// One stream type for the HTTP code of the servers and clients here: plain TCP or TLS behind it,
// chosen at run time.
//
// Why not a template on the stream: Beast's HTTP algorithms with coroutine completion tokens,
// instantiated once over beast::tcp_stream and once over ssl_stream<tcp_stream>, made
// web/server.cpp a 97 s compile producing 13 MB of code in the ASan build, 8 MB of it the TLS
// instantiations. Over ByteStream they are instantiated once, and the TLS layer's own operations
// once for the whole program (byte_stream.cpp) with type-erased handlers. The cost at run time is
// a virtual call and a handler allocation per read or write on the socket.
#include <array>
#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>
#include <memory>
#include <string>

namespace boost::asio::ssl {
class context;
}

namespace ironhold::net {

// Up to `max_buffers` buffers of a sequence, for one read or write: Beast's serializer hands a
// header and a body chunk's framing out as a few buffers; what is past them waits for the next
// write, as a partial write_some allows.
template <class Buffer>
struct BufferList {
  static constexpr std::size_t max_buffers = 16;
  std::array<Buffer, max_buffers> items;
  std::size_t count = 0;

  const Buffer* begin() const { return items.data(); }
  const Buffer* end() const { return items.data() + count; }

  template <class Sequence>
  static BufferList of(const Sequence& sequence) {
    BufferList list;
    for (auto it = boost::asio::buffer_sequence_begin(sequence),
              last = boost::asio::buffer_sequence_end(sequence);
         it != last && list.count < max_buffers; ++it)
      list.items[list.count++] = Buffer(*it);
    return list;
  }
};

class ByteStream {
 public:
  using executor_type = boost::asio::any_io_executor;
  using IoHandler =
      boost::asio::any_completion_handler<void(boost::system::error_code, std::size_t)>;

  virtual ~ByteStream() = default;

  // The TCP stream under it all: timeouts, cancelling, closing.
  virtual boost::beast::tcp_stream& lowest() = 0;
  executor_type get_executor() { return lowest().get_executor(); }
  virtual bool secure() const = 0;

  // The TLS handshake, as the server or the client (a no-op on plain TCP). A client names the
  // host it expects (Server Name Indication) unless `server_name` is empty or an IP address.
  virtual boost::asio::awaitable<boost::system::error_code> handshake(
      bool as_server, const std::string& server_name = {}) = 0;
  // TLS's close_notify, so that the peer can tell the end from a cut (a no-op on plain TCP).
  virtual boost::asio::awaitable<boost::system::error_code> shutdown() = 0;

  // The AsyncReadStream and AsyncWriteStream interface that Beast's and Asio's algorithms use.
  template <class MutableBufferSequence, class Token>
  auto async_read_some(const MutableBufferSequence& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
        [this](auto handler, const BufferList<boost::asio::mutable_buffer>& list) {
          start_read_some(list, IoHandler(std::move(handler)));
        },
        token, BufferList<boost::asio::mutable_buffer>::of(buffers));
  }
  template <class ConstBufferSequence, class Token>
  auto async_write_some(const ConstBufferSequence& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
        [this](auto handler, const BufferList<boost::asio::const_buffer>& list) {
          start_write_some(list, IoHandler(std::move(handler)));
        },
        token, BufferList<boost::asio::const_buffer>::of(buffers));
  }

 protected:
  virtual void start_read_some(const BufferList<boost::asio::mutable_buffer>& buffers,
                               IoHandler handler) = 0;
  virtual void start_write_some(const BufferList<boost::asio::const_buffer>& buffers,
                                IoHandler handler) = 0;
};

// Plain TCP over `stream`.
std::unique_ptr<ByteStream> plain_stream(boost::beast::tcp_stream stream);
// TLS over `stream`, with the settings of `context`, which must outlive the stream.
std::unique_ptr<ByteStream> tls_stream(boost::beast::tcp_stream stream,
                                       boost::asio::ssl::context& context);

}  // namespace ironhold::net

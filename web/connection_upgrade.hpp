#pragma once
// A route that takes its connection over once it has answered (a WebSocket): the server hands the
// connection's stream to it instead of writing the response, and closes the connection when it
// returns.
#include <boost/asio/awaitable.hpp>

namespace ironhold::net {
class ByteStream;
}

namespace ironhold::web {

class ConnectionUpgrade {
 public:
  virtual ~ConnectionUpgrade() = default;
  // Runs the connection's new protocol to its end, on the connection's executor (nothing else
  // reads or writes the stream meanwhile). Never throws.
  virtual boost::asio::awaitable<void> run(net::ByteStream& stream) = 0;
  // The server is stopping: end soon, saying so to the peer. Any thread, any number of times.
  virtual void stop() = 0;
};

}  // namespace ironhold::web

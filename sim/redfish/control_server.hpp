#pragma once
// A small plain-HTTP server for the simulator's control API (control_api.hpp): loopback only by
// intent, one coroutine per connection, keep-alive, the same read limits as the BMCs. It knows
// nothing of BMCs: it hands each request to `handler`.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <memory>

#include "sim/redfish/bmc_state.hpp"

namespace ironhold::sim::redfish {

class ControlServer {
 public:
  using Handler = std::function<Response(const Request&)>;
  ControlServer(boost::asio::io_context& io, Handler handler);
  ~ControlServer();

  // Binds and starts accepting; returns the bound endpoint. ironhold::Error (invalid) when the
  // address cannot be bound.
  boost::asio::ip::tcp::endpoint listen(const boost::asio::ip::tcp::endpoint& endpoint);

 private:
  boost::asio::awaitable<void> accept_loop();
  boost::asio::awaitable<void> serve(boost::asio::ip::tcp::socket socket);

  boost::asio::io_context& io_;
  Handler handler_;
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;
};

}  // namespace ironhold::sim::redfish

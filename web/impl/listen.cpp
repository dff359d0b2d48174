#include "web/impl/listen.hpp"

namespace ironhold::net {

namespace asio = boost::asio;

boost::system::error_code listen_on(asio::ip::tcp::acceptor& acceptor,
                                    const asio::ip::tcp::endpoint& endpoint) {
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  return ec;
}

}  // namespace ironhold::net

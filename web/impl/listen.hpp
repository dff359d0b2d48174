#pragma once
// How every server of the program (the service, the simulated BMCs, their control API) starts
// listening: one place for the socket options they must agree on.
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

namespace ironhold::net {

// Opens `acceptor` on `endpoint` with address reuse (a restarted server gets its port back while
// old connections linger in TIME_WAIT), binds and listens. Returns the first failure rather than
// throwing, so that each caller can say what it was listening for.
boost::system::error_code listen_on(boost::asio::ip::tcp::acceptor& acceptor,
                                    const boost::asio::ip::tcp::endpoint& endpoint);

}  // namespace ironhold::net

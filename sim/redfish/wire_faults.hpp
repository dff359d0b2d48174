#pragma once
// How a faulty BMC behaves on the socket (used by redfish_server.cpp only): silence, a reset
// connection, a body dripped a few bytes at a time, a redirect loop, a 5xx storm. Plain TCP and
// TLS act the same.
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <string>

#include "sim/redfish/bmc_state.hpp"
#include "web/impl/byte_stream.hpp"

namespace ironhold::sim::redfish::wire {

namespace asio = boost::asio;
namespace beast = boost::beast;
inline constexpr auto as_tuple_awaitable = asio::as_tuple(asio::use_awaitable);

// Keeps the connection open and says nothing until the client gives up (or `longest` passes):
// what a hung BMC web server does. Whatever the client sends meanwhile is read and dropped.
asio::awaitable<void> stay_silent(net::ByteStream& stream, std::chrono::milliseconds longest);

// An RST instead of an answer (SO_LINGER 0), not even a TLS close_notify.
void reset(net::ByteStream& stream);

// Writes the header at once, then the body `chunk` bytes at a time with `pause` between.
asio::awaitable<bool> drip(net::ByteStream& stream, const Response& response,
                           std::chrono::milliseconds pause, std::chrono::milliseconds write_timeout,
                           std::size_t chunk = 16);

// 302 to a twin URL of the target, whose own answer is a 302 back: a loop between two URLs.
Response redirect_loop(const std::string& target);
// A 500, or a 503 with Retry-After half of the time, with a Redfish error body.
Response server_error(bool unavailable);

}  // namespace ironhold::sim::redfish::wire

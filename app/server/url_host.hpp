#pragma once
// An address as the host part of a URL or of a listen address: IPv6 in brackets.
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <string>

#include "inventory/util/concat.hpp"

namespace ironhold::app {

// Joined by util::concat: `"[" + address.to_string() + "]"`, written at each place that needed it,
// made GCC 12 warn falsely in the optimized builds (inventory/util/concat.hpp says why).
inline std::string url_host(const boost::asio::ip::address& address) {
  const std::string text = address.to_string();
  return address.is_v6() ? util::concat("[", text, "]") : text;
}

// host:port of an endpoint, as a URL's authority or a listen address takes it.
inline std::string host_port(const boost::asio::ip::tcp::endpoint& endpoint) {
  return util::concat(url_host(endpoint.address()), ":", std::to_string(endpoint.port()));
}

}  // namespace ironhold::app

#include "inventory/model/endpoint.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>

#include "inventory/util/concat.hpp"

namespace ironhold {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool valid_dns_name(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  std::size_t label = 0;
  char previous = '.';
  for (char c : host) {
    if (c == '.') {
      if (label == 0 || previous == '-') return false;
      label = 0;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') {
      if (label == 0 && c == '-') return false;
      if (++label > 63) return false;
    } else {
      return false;
    }
    previous = c;
  }
  return previous != '-';
}

bool looks_numeric_ipv4(std::string_view host) {
  return !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
    return c == '.' || std::isdigit(static_cast<unsigned char>(c));
  });
}

}  // namespace

std::string Endpoint::to_string() const {
  std::string out;
  if (!scheme.empty()) out = util::concat(scheme, "://");
  out += is_ipv6() ? util::concat("[", host, "]") : host;
  if (port) {
    out += ':';
    out += std::to_string(*port);
  }
  return out;
}

std::optional<Endpoint> parse_endpoint(std::string_view text, std::string& why) {
  Endpoint ep;
  if (text.empty()) {
    why = "the endpoint is empty";
    return std::nullopt;
  }
  if (text.size() > 2048) {
    why = "the endpoint is too long";
    return std::nullopt;
  }
  std::string_view rest = text;
  if (auto sep = rest.find("://"); sep != std::string_view::npos) {
    ep.scheme = lower(rest.substr(0, sep));
    if (ep.scheme != "https" && ep.scheme != "http" && ep.scheme != "ipmi") {
      why = "unsupported endpoint scheme '" + ep.scheme +
            "': use https:// or http:// (Redfish) or ipmi://";
      return std::nullopt;
    }
    rest.remove_prefix(sep + 3);
  }
  // A trailing "/" is harmless; any other path, a query or a fragment is not an endpoint.
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find_first_of("/?#") != std::string_view::npos) {
    why = "the endpoint must be scheme://host[:port] without a path, query or fragment";
    return std::nullopt;
  }
  if (rest.find('@') != std::string_view::npos) {
    why = "the endpoint must not carry credentials; send them in \"credentials\"";
    return std::nullopt;
  }
  std::string_view host, port;
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string_view::npos) {
      why = "unterminated '[' in an IPv6 endpoint";
      return std::nullopt;
    }
    host = rest.substr(1, close - 1);
    std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        why = "unexpected text after the IPv6 address";
        return std::nullopt;
      }
      port = after.substr(1);
      if (port.empty()) {
        why = "the endpoint has an empty port";
        return std::nullopt;
      }
    }
    in6_addr addr{};
    if (inet_pton(AF_INET6, std::string(host).c_str(), &addr) != 1) {
      why = "'" + std::string(host) + "' is not a valid IPv6 address";
      return std::nullopt;
    }
  } else {
    const auto colon = rest.find(':');
    host = rest.substr(0, colon);
    if (colon != std::string_view::npos) {
      port = rest.substr(colon + 1);
      if (port.empty()) {
        why = "the endpoint has an empty port";
        return std::nullopt;
      }
    }
    in_addr addr{};
    if (looks_numeric_ipv4(host) ? inet_pton(AF_INET, std::string(host).c_str(), &addr) != 1
                                 : !valid_dns_name(host)) {
      why = "'" + std::string(host) + "' is not a valid host name or IP address";
      return std::nullopt;
    }
  }
  if (!port.empty()) {
    unsigned value = 0;
    auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc{} || p != port.data() + port.size() || value == 0 || value > 65535) {
      why = "the endpoint port must be a number from 1 to 65535";
      return std::nullopt;
    }
    ep.port = static_cast<std::uint16_t>(value);
  }
  ep.host = lower(host);
  return ep;
}

}  // namespace ironhold

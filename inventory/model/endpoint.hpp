#pragma once
// A BMC endpoint as enrolled: a URL whose scheme says the transport.
//   https://10.1.2.3[:port]  Redfish over TLS       http://127.0.0.1:8000  Redfish without TLS
//   ipmi://10.1.2.4[:623]    IPMI v2.0 over UDP     10.1.2.3               bare host (driver auto)
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ironhold {

struct Endpoint {
  std::string scheme;  // "https", "http", "ipmi", or empty for a bare host
  std::string host;    // lower case; IPv6 without brackets
  std::optional<std::uint16_t> port;

  // The canonical text: scheme://host[:port], with IPv6 hosts in brackets.
  std::string to_string() const;
  bool is_ipv6() const { return host.find(':') != std::string::npos; }
};

// Parses and validates; on failure returns nullopt and sets `why` to a message for the user.
std::optional<Endpoint> parse_endpoint(std::string_view text, std::string& why);

}  // namespace ironhold

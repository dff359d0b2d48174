#pragma once
// The addresses a network discovery sweeps, from what a user types: one address ("10.0.0.5"), an
// inclusive range ("10.0.0.1-10.0.0.40") or a CIDR block ("10.0.0.0/26"), IPv4 or IPv6.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::discovery {

// The most addresses one discovery may sweep: a /20 of IPv4, a /116 of IPv6.
inline constexpr std::size_t max_addresses = 4096;

// The addresses in order, as canonical text (inet_ntop). An IPv4 block of /30 or wider leaves out
// its network and broadcast addresses, which no BMC has. Throws ironhold::Error (unprocessable)
// naming `field` when the text is not one of the three forms or covers more than `limit`
// addresses.
std::vector<std::string> expand_addresses(std::string_view text, const std::string& field,
                                          std::size_t limit = max_addresses);

}  // namespace ironhold::discovery

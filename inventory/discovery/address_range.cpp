#include "inventory/discovery/address_range.hpp"

#include <arpa/inet.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <optional>

#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::discovery {
namespace {

// 128 bits hold any address; IPv4 uses the low 32. A GCC/Clang extension, hence __extension__
// (-Wpedantic).
__extension__ typedef unsigned __int128 Bits;

struct Address {
  bool v6 = false;
  Bits bits = 0;
};

unsigned width(bool v6) {
  return v6 ? 128 : 32;
}

std::optional<Address> parse_address(std::string_view text) {
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  const std::string s(text);
  if (s.find(':') == std::string::npos) {
    in_addr v4{};
    if (::inet_pton(AF_INET, s.c_str(), &v4) != 1) return std::nullopt;
    return Address{false, ntohl(v4.s_addr)};
  }
  in6_addr v6{};
  if (::inet_pton(AF_INET6, s.c_str(), &v6) != 1) return std::nullopt;
  Bits bits = 0;
  for (unsigned char byte : v6.s6_addr) bits = (bits << 8) | byte;
  return Address{true, bits};
}

std::string format(const Address& a) {
  char text[INET6_ADDRSTRLEN] = "";
  if (!a.v6) {
    in_addr v4{};
    v4.s_addr = htonl(static_cast<std::uint32_t>(a.bits));
    ::inet_ntop(AF_INET, &v4, text, sizeof text);
  } else {
    in6_addr v6{};
    Bits bits = a.bits;
    for (int i = 15; i >= 0; --i) {
      v6.s6_addr[i] = static_cast<unsigned char>(bits & 0xFF);
      bits >>= 8;
    }
    ::inet_ntop(AF_INET6, &v6, text, sizeof text);
  }
  return text;
}

std::string quoted(std::string_view text) {
  return util::concat("\"", text.substr(0, 100), "\"");
}

Address need_address(std::string_view text, std::string_view whole, const std::string& field) {
  auto a = parse_address(text);
  if (!a)
    throw unprocessable(quoted(text) + " in " + quoted(whole) +
                            " is not an IPv4 or IPv6 address; \"addresses\" is an address, a range "
                            "\"10.0.0.1-10.0.0.40\" or a CIDR block \"10.0.0.0/26\"",
                        field);
  return *a;
}

Error too_many(std::string_view whole, Bits count, std::size_t limit, const std::string& field) {
  const std::string n = count > Bits(1) << 64 ? std::string("more than 2^64")
                                              : std::to_string(static_cast<std::uint64_t>(count));
  return unprocessable(quoted(whole) + " covers " + n +
                           " addresses; one discovery sweeps at most " + std::to_string(limit) +
                           " (an IPv4 /20 or an IPv6 /116): split it into several",
                       field);
}

std::vector<std::string> expand(Address first, Bits count) {
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(count));
  for (Bits i = 0; i < count; ++i) out.push_back(format({first.v6, first.bits + i}));
  return out;
}

}  // namespace

std::vector<std::string> expand_addresses(std::string_view text, const std::string& field,
                                          std::size_t limit) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty()) throw unprocessable("\"addresses\" is empty", field);

  if (const auto slash = text.find('/'); slash != std::string_view::npos) {
    const Address base = need_address(text.substr(0, slash), text, field);
    const std::string_view prefix_text = text.substr(slash + 1);
    unsigned prefix = 0;
    const auto [end, ec] =
        std::from_chars(prefix_text.data(), prefix_text.data() + prefix_text.size(), prefix);
    if (ec != std::errc() || end != prefix_text.data() + prefix_text.size() ||
        prefix_text.empty() || prefix > width(base.v6))
      throw unprocessable(quoted(text) + " has no valid prefix length: use 0 to " +
                              std::to_string(width(base.v6)) + " after the /",
                          field);
    const unsigned host_bits = width(base.v6) - prefix;
    const Bits count = host_bits >= 127 ? ~Bits(0) : Bits(1) << host_bits;
    if (count > limit) throw too_many(text, count, limit, field);
    const Bits host_mask = count - 1;
    if ((base.bits & host_mask) != 0) {
      const Address network{base.v6, base.bits & ~host_mask};
      throw unprocessable(quoted(text) + " has host bits set: the block is " + format(network) +
                              "/" + std::to_string(prefix),
                          field);
    }
    // No BMC answers on an IPv4 block's network or broadcast address.
    if (!base.v6 && host_bits >= 2) return expand({false, base.bits + 1}, count - 2);
    return expand(base, count);
  }

  if (const auto dash = text.find('-'); dash != std::string_view::npos) {
    const Address first = need_address(text.substr(0, dash), text, field);
    const Address last = need_address(text.substr(dash + 1), text, field);
    if (first.v6 != last.v6) throw unprocessable(quoted(text) + " mixes IPv4 and IPv6", field);
    if (last.bits < first.bits)
      throw unprocessable(quoted(text) + " ends before it starts: write the lower address first",
                          field);
    const Bits span = last.bits - first.bits;
    if (span >= limit) throw too_many(text, span == ~Bits(0) ? span : span + 1, limit, field);
    return expand(first, span + 1);
  }

  return expand(need_address(text, text, field), 1);
}

}  // namespace ironhold::discovery

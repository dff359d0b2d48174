// What a discovery sweeps and how it names what it enrolls, without a network.
#include "inventory/discovery/discovery_request.hpp"

#include <catch2/catch.hpp>

#include "inventory/discovery/address_range.hpp"
#include "inventory/error.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace discovery_request_test {

using namespace ironhold;
using namespace ironhold::discovery;
using nlohmann::json;

namespace {

std::string error_of(const std::string& text, std::size_t limit = max_addresses) {
  try {
    expand_addresses(text, "addresses", limit);
  } catch (const Error& e) {
    CHECK(e.field() == "addresses");
    CHECK(e.kind() == ErrorKind::unprocessable);
    return e.what();
  }
  FAIL("no error for " << text);
  return {};
}

}  // namespace

TEST_CASE("a single address, a range and a CIDR block expand in order", "[discovery]") {
  CHECK(expand_addresses("10.0.0.5", "a") == std::vector<std::string>{"10.0.0.5"});
  CHECK(expand_addresses(" 10.0.0.254-10.0.1.1 ", "a") ==
        std::vector<std::string>{"10.0.0.254", "10.0.0.255", "10.0.1.0", "10.0.1.1"});
  // Network and broadcast addresses are left out of IPv4 blocks of four or more.
  CHECK(expand_addresses("127.0.0.0/30", "a") ==
        std::vector<std::string>{"127.0.0.1", "127.0.0.2"});
  CHECK(expand_addresses("127.0.0.0/26", "a").size() == 62);
  CHECK(expand_addresses("127.0.0.4/31", "a") ==
        std::vector<std::string>{"127.0.0.4", "127.0.0.5"});
  CHECK(expand_addresses("127.0.0.9/32", "a") == std::vector<std::string>{"127.0.0.9"});
  CHECK(expand_addresses("10.0.0.0/20", "a").size() == 4094);
  CHECK(expand_addresses("10.0.0.0-10.0.15.255", "a").size() == 4096);
  // IPv6, canonical text.
  CHECK(expand_addresses("::1", "a") == std::vector<std::string>{"::1"});
  CHECK(expand_addresses("FD00::fe-fd00::101", "a") ==
        std::vector<std::string>{"fd00::fe", "fd00::ff", "fd00::100", "fd00::101"});
  CHECK(expand_addresses("fd00::/126", "a") ==
        std::vector<std::string>{"fd00::", "fd00::1", "fd00::2", "fd00::3"});
  CHECK(expand_addresses("fd00::/116", "a").size() == 4096);
}

TEST_CASE("address texts that are not one of the three forms, or too large, are refused",
          "[discovery]") {
  CHECK_THAT(error_of(""), Catch::Contains("empty"));
  CHECK_THAT(error_of("10.0.0"), Catch::Contains("is not an IPv4 or IPv6 address"));
  CHECK_THAT(error_of("bmc.example.com"), Catch::Contains("is not an IPv4 or IPv6 address"));
  CHECK_THAT(error_of("10.0.0.1-"), Catch::Contains("is not an IPv4 or IPv6 address"));
  CHECK_THAT(error_of("10.0.0.9-10.0.0.1"), Catch::Contains("ends before it starts"));
  CHECK_THAT(error_of("10.0.0.1-::1"), Catch::Contains("mixes IPv4 and IPv6"));
  CHECK_THAT(error_of("10.0.0.0/19"),
             Catch::Contains("covers 8192 addresses") && Catch::Contains("at most 4096"));
  CHECK_THAT(error_of("10.0.0.0-10.0.16.0"), Catch::Contains("covers 4097 addresses"));
  CHECK_THAT(error_of("0.0.0.0-255.255.255.255"), Catch::Contains("covers 4294967296"));
  CHECK_THAT(error_of("::/0"), Catch::Contains("more than 2^64"));
  CHECK_THAT(error_of("::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
             Catch::Contains("more than 2^64"));
  CHECK_THAT(error_of("10.0.0.0/"), Catch::Contains("no valid prefix length"));
  CHECK_THAT(error_of("10.0.0.0/x"), Catch::Contains("no valid prefix length"));
  CHECK_THAT(error_of("10.0.0.0/-1"), Catch::Contains("no valid prefix length"));
  CHECK_THAT(error_of("fd00::/129"), Catch::Contains("use 0 to 128"));
  CHECK_THAT(error_of("10.0.0.7/29"), Catch::Contains("host bits set: the block is 10.0.0.0/29"));
  CHECK_THAT(error_of("10.0.0.1-10.0.0.3", 2), Catch::Contains("covers 3 addresses"));
}

TEST_CASE("a discovery request takes defaults and keeps the password out of its parameters",
          "[discovery]") {
  const auto r = parse_discovery_request({{"addresses", "10.0.0.1-10.0.0.3"}});
  CHECK(r.addresses.size() == 3);
  CHECK(r.ports.empty());
  CHECK_FALSE(r.enroll);
  CHECK(r.name_prefix == "bmc-");
  CHECK(r.concurrency == default_concurrency);
  CHECK_FALSE(r.timeout);

  const auto e =
      parse_discovery_request({{"addresses", "10.0.0.0/30"},
                               {"ports", {8443, 623}},
                               {"credentials", {{"username", "root"}, {"password", "hunter2"}}},
                               {"enroll", true},
                               {"name_prefix", "rack7."},
                               {"concurrency", 128},
                               {"timeout_ms", 250}});
  CHECK(e.ports == std::vector<std::uint16_t>{8443, 623});
  REQUIRE(e.credentials);
  CHECK(e.credentials->password == "hunter2");
  CHECK(e.timeout == std::chrono::milliseconds(250));
  const json p = public_parameters(e);
  CHECK(p["credentials"] == json({{"username", "root"}}));
  CHECK(p.dump().find("hunter2") == std::string::npos);
  CHECK(p["addresses"] == "10.0.0.0/30");
}

TEST_CASE("enrolled names are the prefix and the address, with a port off the standard one",
          "[discovery]") {
  CHECK(node_name_for("bmc-", Endpoint{"https", "10.0.0.5", std::nullopt}) == "bmc-10-0-0-5");
  CHECK(node_name_for("bmc-", Endpoint{"ipmi", "10.0.0.5", 6230}) == "bmc-10-0-0-5-6230");
  CHECK(node_name_for("lab.", Endpoint{"https", "fd00::1", 8443}) == "lab.fd00--1-8443");
}

}  // namespace discovery_request_test

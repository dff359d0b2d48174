#include "inventory/model/endpoint.hpp"

#include <catch2/catch.hpp>

// This file's names, apart from those of the other test files compiled with it.
namespace endpoint_test {

using ironhold::parse_endpoint;

TEST_CASE("endpoints parse into scheme, host and port", "[model][endpoint]") {
  std::string why;
  auto ep = parse_endpoint("HTTPS://BMC-01.Example.net:8443/", why);
  REQUIRE(ep);
  CHECK(ep->scheme == "https");
  CHECK(ep->host == "bmc-01.example.net");
  CHECK(ep->port == 8443);
  CHECK(ep->to_string() == "https://bmc-01.example.net:8443");

  ep = parse_endpoint("ipmi://[fe80::1]:623", why);
  REQUIRE(ep);
  CHECK(ep->host == "fe80::1");
  CHECK(ep->to_string() == "ipmi://[fe80::1]:623");

  ep = parse_endpoint("10.1.2.3", why);
  REQUIRE(ep);
  CHECK(ep->scheme.empty());
  CHECK_FALSE(ep->port);
}

TEST_CASE("bad endpoints are refused with a reason", "[model][endpoint]") {
  for (const char* text :
       {"", "https://", "gopher://h", "https://h:0", "https://h:65536", "https://h:12a",
        "https://u:p@h", "https://h/redfish/v1", "https://h?x=1", "https://300.1.1.1",
        "https://[::1", "https://[zz::1]", "https://-bad-.example", "https://a..b", "https://h:"}) {
    std::string why;
    INFO(text);
    CHECK_FALSE(parse_endpoint(text, why));
    CHECK_FALSE(why.empty());
  }
}

}  // namespace endpoint_test

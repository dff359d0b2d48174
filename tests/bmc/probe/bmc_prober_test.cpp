// The driver-auto probe against real peers on loopback: an HTTPS server with a self-signed
// certificate, OpenIPMI's ipmi_sim, UDP sockets that answer junk or nothing, closed ports.
// Each test case has its own 127.0.81.x address (ctest runs them in parallel).
#include "bmc/probe/bmc_prober.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <random>

#include "inventory/util/concat.hpp"
#include "tests/support/server/bmc_peers.hpp"
#include "tests/support/server/tls_test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace bmc_prober_test {

using namespace ironhold;
using namespace ironhold::test;
using bmc::BmcProber;
using bmc::ProbeOptions;
using Bytes = std::vector<std::uint8_t>;

namespace {

const char* kServiceRoot =
    R"({"@odata.id": "/redfish/v1/", "@odata.type": "#ServiceRoot.v1_15_0.ServiceRoot",
        "Id": "RootService", "Name": "Root Service", "RedfishVersion": "1.15.0"})";

// What ipmi_sim 2.0.33 answers to ipmi_channel_auth_request(): channel 1, none/MD5/password
// authentication, IPMI v1.5 and v2.0 connections.
const Bytes kSimReply = {0x06, 0x00, 0xFF, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                         0x00, 0x00, 0x00, 0x10, 0x81, 0x1C, 0x63, 0x20, 0x00, 0x38,
                         0x00, 0x01, 0x84, 0x04, 0x03, 0x00, 0x00, 0x00, 0x00, 0x1C};

Endpoint bare(const std::string& host) {
  return Endpoint{"", host, std::nullopt};
}

ProbeOptions options(unsigned short https_port, unsigned short ipmi_port, int timeout_ms = 2000) {
  ProbeOptions o;
  o.https_port = https_port;
  o.ipmi_port = ipmi_port;
  o.timeout = std::chrono::milliseconds(timeout_ms);
  return o;
}

// A UDP socket that is bound (so no ICMP unreachable comes back) but never answers.
struct SilentUdp {
  int fd = -1;
  unsigned short port = 0;
  explicit SilentUdp(const std::string& address) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    inet_pton(AF_INET, address.c_str(), &addr.sin_addr);
    fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    socklen_t length = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
    port = ntohs(addr.sin_port);
  }
  ~SilentUdp() { ::close(fd); }
};

}  // namespace

TEST_CASE("the IPMI probe sends a session-less Get Channel Authentication Capabilities",
          "[bmc][probe]") {
  // clang-format off
  const Bytes expected = {
      0x06, 0x00, 0xFF, 0x07,                    // RMCP: version 1.0, no ACK, class IPMI
      0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x09,        // no session, a 9-byte message
      0x20, 0x18, 0xC8,                          // the BMC, netFn App, checksum
      0x81, 0x00, 0x38, 0x8E, 0x04, 0xB5};       // cmd 38h, v2.0 data, admin, checksum
  // clang-format on
  CHECK(bmc::ipmi_channel_auth_request() == expected);
}

TEST_CASE("a well-formed channel authentication reply is accepted", "[bmc][probe]") {
  const auto reply = bmc::check_ipmi_channel_auth_reply(kSimReply);
  CHECK(reply.ok);
  CHECK(reply.detail == "IPMI BMC (channel 1, IPMI v2.0)");
  Bytes padded = kSimReply;
  padded.push_back(0x00);  // the legacy pad byte some BMCs add
  CHECK(bmc::check_ipmi_channel_auth_reply(padded).ok);
}

TEST_CASE("truncated or corrupted IPMI replies are rejected, never trusted", "[bmc][probe]") {
  for (std::size_t n = 0; n < kSimReply.size(); ++n) {
    INFO("prefix of " << n << " bytes");
    CHECK_FALSE(bmc::check_ipmi_channel_auth_reply(std::span(kSimReply.data(), n)).ok);
  }
  // Bytes the check ignores: RMCP reserved and sequence, the session sequence number.
  const std::size_t ignored[] = {1, 2, 5, 6, 7, 8};
  for (std::size_t i = 0; i < kSimReply.size(); ++i) {
    if (std::find(std::begin(ignored), std::end(ignored), i) != std::end(ignored)) continue;
    for (unsigned flip : {0x01u, 0x80u, 0xFFu}) {
      Bytes bad = kSimReply;
      bad[i] = static_cast<std::uint8_t>(bad[i] ^ flip);
      INFO("byte " << i << " xor " << flip);
      CHECK_FALSE(bmc::check_ipmi_channel_auth_reply(bad).ok);
    }
  }
  // A valid frame with an error completion code: an IPMI device, but not one that will talk.
  Bytes refused = {0x06, 0x00, 0xFF, 0x07, 0x00, 0,    0,    0,    0,    0,    0,
                   0,    0,    0x08, 0x81, 0x1C, 0x63, 0x20, 0x00, 0x38, 0xCC, 0xDC};
  const auto reply = bmc::check_ipmi_channel_auth_reply(refused);
  CHECK_FALSE(reply.ok);
  CHECK(reply.detail == "completion code 0xCC");
}

TEST_CASE("random datagrams never crash the IPMI reply check", "[bmc][probe][fuzz]") {
  std::mt19937 rng(20261129);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 20000; ++round) {
    // Half start from a valid header so that the deeper checks are reached too.
    Bytes d = round % 2 ? Bytes(kSimReply.begin(), kSimReply.begin() + 14) : Bytes{};
    const int extra = byte(rng) + (round % 7 == 0 ? 200 : 0);
    for (int i = 0; i < extra; ++i) d.push_back(static_cast<std::uint8_t>(byte(rng)));
    if (round % 2) d[13] = static_cast<std::uint8_t>(byte(rng));
    REQUIRE_NOTHROW(bmc::check_ipmi_channel_auth_reply(d));
  }
}

TEST_CASE("only a JSON object with RedfishVersion or the root @odata.id is a service root",
          "[bmc][probe]") {
  CHECK(bmc::is_redfish_service_root(kServiceRoot));
  CHECK(bmc::is_redfish_service_root(R"({"@odata.id": "/redfish/v1/"})"));
  CHECK(bmc::is_redfish_service_root(R"({"@odata.id": "/redfish/v1"})"));
  CHECK_FALSE(bmc::is_redfish_service_root(R"({"hello": 1})"));
  CHECK_FALSE(bmc::is_redfish_service_root(R"({"RedfishVersion": 1})"));
  CHECK_FALSE(bmc::is_redfish_service_root(R"({"@odata.id": "/redfish/v1/Systems"})"));
  CHECK_FALSE(bmc::is_redfish_service_root(R"(["RedfishVersion"])"));
  CHECK_FALSE(bmc::is_redfish_service_root("<html>login</html>"));
  CHECK_FALSE(bmc::is_redfish_service_root(""));
  CHECK_FALSE(bmc::is_redfish_service_root(std::string(60000, '[')));
  CHECK_FALSE(
      bmc::is_redfish_service_root(ironhold::util::concat(std::string(70000, ' '), kServiceRoot)));
}

TEST_CASE("a Redfish service with a self-signed certificate is found, without credentials",
          "[bmc][probe]") {
  TlsTestServer redfish("127.0.81.1", CannedResponse{200, "application/json", kServiceRoot});
  BmcProber prober(options(redfish.port(), free_udp_port("127.0.81.1")));
  const auto result = prober.probe(bare("127.0.81.1"));
  REQUIRE(result.driver == "redfish");
  REQUIRE(result.endpoint);
  CHECK(result.endpoint->to_string() == "https://127.0.81.1:" + std::to_string(redfish.port()));
  REQUIRE(result.attempts.size() == 1);  // IPMI is not tried once Redfish answered
  CHECK(result.attempts[0].transport ==
        "redfish https://127.0.81.1:" + std::to_string(redfish.port()));
  CHECK(result.attempts[0].outcome == "Redfish service root");
  const auto requests = redfish.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "GET");
  CHECK(requests[0].target == "/redfish/v1/");
  CHECK_FALSE(requests[0].headers.count("authorization"));
  CHECK_FALSE(requests[0].headers.count("cookie"));
}

TEST_CASE("the standard HTTPS port is left out of the stored endpoint", "[bmc][probe]") {
  std::unique_ptr<TlsTestServer> redfish;
  try {
    redfish = std::make_unique<TlsTestServer>(
        "127.0.81.2", CannedResponse{200, "application/json", kServiceRoot}, 443);
  } catch (const std::exception& e) {
    WARN("skipped: port 443 needs privileges here (" << e.what() << ")");
    return;
  }
  BmcProber prober(options(443, free_udp_port("127.0.81.2")));
  const auto result = prober.probe(bare("127.0.81.2"));
  REQUIRE(result.driver == "redfish");
  CHECK(result.endpoint->to_string() == "https://127.0.81.2");
}

TEST_CASE("an HTTPS 200 that is not a service root and a closed UDP port are no BMC",
          "[bmc][probe]") {
  TlsTestServer web("127.0.81.3", CannedResponse{200, "application/json", R"({"hello":1})"});
  const auto ipmi_port = free_udp_port("127.0.81.3");
  BmcProber prober(options(web.port(), ipmi_port));
  const auto result = prober.probe(bare("127.0.81.3"));
  CHECK_FALSE(result.driver);
  CHECK_FALSE(result.endpoint);
  REQUIRE(result.attempts.size() == 2);
  CHECK(result.attempts[0].outcome == "HTTP 200, but the body is not a Redfish service root");
  CHECK(result.attempts[1].transport == "ipmi 127.0.81.3:" + std::to_string(ipmi_port));
  CHECK(result.attempts[1].outcome == "port unreachable (ICMP)");
}

TEST_CASE("an oversized HTTPS answer is cut off at 64 KiB", "[bmc][probe]") {
  TlsTestServer big("127.0.81.4", CannedResponse{200, "application/json",
                                                 R"({"RedfishVersion":"1.0.0","pad":")" +
                                                     std::string(100 * 1024, 'x') + "\"}"});
  BmcProber prober(options(big.port(), free_udp_port("127.0.81.4")));
  const auto result = prober.probe(bare("127.0.81.4"));
  CHECK_FALSE(result.driver);
  REQUIRE(result.attempts.size() == 2);
  CHECK(result.attempts[0].outcome == "the answer is larger than 64 KiB: not a service root");
}

TEST_CASE("closed ports are reported as refused", "[bmc][probe]") {
  const auto https_port = free_tcp_port("127.0.81.5");
  const auto ipmi_port = free_udp_port("127.0.81.5");
  BmcProber prober(options(https_port, ipmi_port));
  const auto result = prober.probe(bare("127.0.81.5"));
  CHECK_FALSE(result.driver);
  REQUIRE(result.attempts.size() == 2);
  CHECK(result.attempts[0].outcome == "connection refused");
  CHECK(result.attempts[1].outcome == "port unreachable (ICMP)");
}

TEST_CASE("peers that never answer time out within the budget", "[bmc][probe]") {
  // A TCP listener nobody accepts on: the connection completes, the TLS handshake never does.
  const int tcp = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.81.6", &addr.sin_addr);
  REQUIRE(::bind(tcp, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(tcp, 4) == 0);
  socklen_t length = sizeof addr;
  ::getsockname(tcp, reinterpret_cast<sockaddr*>(&addr), &length);
  SilentUdp udp("127.0.81.6");

  BmcProber prober(options(ntohs(addr.sin_port), udp.port, 400));
  const auto started = std::chrono::steady_clock::now();
  const auto result = prober.probe(bare("127.0.81.6"));
  const auto elapsed = std::chrono::steady_clock::now() - started;
  ::close(tcp);
  CHECK_FALSE(result.driver);
  REQUIRE(result.attempts.size() == 2);
  CHECK(result.attempts[0].outcome == "no answer within 400 ms");
  CHECK(result.attempts[1].outcome == "no answer within 400 ms (2 tries)");
  CHECK(elapsed >= std::chrono::milliseconds(750));
}

TEST_CASE("a UDP peer answering junk is not taken for an IPMI BMC", "[bmc][probe]") {
  UdpResponder junk("127.0.81.7",
                    Bytes{'H', 'T', 'T', 'P', '/', '1', '.', '1', ' ', '4', '0', '0'});
  BmcProber prober(options(free_tcp_port("127.0.81.7"), junk.port()));
  const auto result = prober.probe(bare("127.0.81.7"));
  CHECK_FALSE(result.driver);
  REQUIRE(result.attempts.size() == 2);
  CHECK(result.attempts[1].outcome ==
        "answered, but not as an IPMI BMC: a datagram of 12 bytes is shorter than the headers");
  CHECK(junk.datagrams_received() == 1);
}

TEST_CASE("an IPMI BMC (OpenIPMI ipmi_sim) is found when Redfish is closed",
          "[bmc][probe][ipmi_sim]") {
  if (auto why = IpmiSim::unavailable()) {
    WARN("skipped: " << *why);
    return;
  }
  IpmiSim sim("127.0.81.8");
  BmcProber prober(options(free_tcp_port("127.0.81.8"), sim.port()));
  const auto result = prober.probe(bare("127.0.81.8"));
  REQUIRE(result.driver == "ipmi");
  CHECK(result.endpoint->to_string() == "ipmi://127.0.81.8:" + std::to_string(sim.port()));
  REQUIRE(result.attempts.size() == 2);
  CHECK(result.attempts[0].outcome == "connection refused");
  CHECK(result.attempts[1].outcome == "IPMI BMC (channel 1, IPMI v2.0)");
}

TEST_CASE("IPv6 hosts are bracketed in what the probe reports", "[bmc][probe]") {
  const int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in6 addr{};
  addr.sin6_family = AF_INET6;
  addr.sin6_addr = in6addr_loopback;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (fd >= 0) ::close(fd);
    WARN("skipped: no IPv6 loopback here");
    return;
  }
  socklen_t length = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
  const unsigned short port = ntohs(addr.sin6_port);
  ::close(fd);  // closed again: both probes find nothing
  BmcProber prober(options(port, port));
  const auto result = prober.probe(bare("::1"));
  CHECK_FALSE(result.driver);
  REQUIRE(result.attempts.size() == 2);
  CHECK(result.attempts[0].transport == "redfish https://[::1]:" + std::to_string(port));
  CHECK(result.attempts[1].transport == "ipmi [::1]:" + std::to_string(port));
}

}  // namespace bmc_prober_test

// POST /api/v1/nodes with driver "auto" and a bare host: the service probes the host (Redfish over
// HTTPS, then IPMI) and stores the node with what answered. Real peers on loopback: an HTTPS
// server with a self-signed certificate, OpenIPMI's ipmi_sim, junk-answering UDP, closed ports.
// Each test case has its own 127.0.82.x address (ctest runs them in parallel).
#include <catch2/catch.hpp>

#include "tests/support/server/bmc_peers.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "tests/support/server/tls_test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace auto_enroll_test {

using namespace ironhold::test;
using ironhold::bmc::ProbeOptions;
using nlohmann::json;

namespace {

const char* kServiceRoot = R"({"@odata.id": "/redfish/v1/", "RedfishVersion": "1.11.0"})";

json auto_enrollment(const std::string& name, const std::string& host) {
  return {{"name", name},
          {"driver", "auto"},
          {"endpoint", host},
          {"credentials", {{"username", "admin"}, {"password", "password"}}},
          {"tags", {{"rack", "R1"}}}};
}

ProbeOptions probe_at(unsigned short https_port, unsigned short ipmi_port) {
  ProbeOptions o;
  o.https_port = https_port;
  o.ipmi_port = ipmi_port;
  o.timeout = std::chrono::milliseconds(2000);
  return o;
}

HttpResult enroll(TestServer& server, const json& body) {
  return http_send(server.port(), "POST", "/api/v1/nodes", body, server.token("operator"));
}

// The details of the newest audit entry for an enrollment.
json last_enrollment_audit(TestServer& server) {
  const auto res = http_get(server.port(), "/api/v1/audit", server.token("auditor"));
  INFO(res.body);
  REQUIRE(res.status == 200);
  const json page = res.json();  // kept: a range-for over a temporary's member would dangle
  for (const auto& item : page["items"])
    if (item["action"] == "POST /api/v1/nodes") return item["details"];
  FAIL("no audit entry for POST /api/v1/nodes");
  return nullptr;
}

}  // namespace

TEST_CASE("auto enrollment of a host that answers Redfish stores a redfish node",
          "[web][nodes][auto]") {
  TlsTestServer redfish("127.0.82.1", CannedResponse{200, "application/json", kServiceRoot});
  TestServer server({}, probe_at(redfish.port(), free_udp_port("127.0.82.1")));
  const auto res = enroll(server, auto_enrollment("auto-rf", "127.0.82.1"));
  INFO(res.body);
  REQUIRE(res.status == 201);
  const auto node = res.json();
  const std::string endpoint = "https://127.0.82.1:" + std::to_string(redfish.port());
  CHECK(node["driver"] == "redfish");
  CHECK(node["endpoint"] == endpoint);
  CHECK(node["credentials_set"] == true);
  CHECK(node["tags"] == json({{"rack", "R1"}}));
  CHECK(http_get(server.port(), "/api/v1/nodes/auto-rf", server.token("viewer")).json() == node);
  // The probe carried no credentials: the stored ones are for the driver, later.
  REQUIRE(redfish.requests().size() == 1);
  CHECK_FALSE(redfish.requests()[0].headers.count("authorization"));

  const auto probe = last_enrollment_audit(server)["probe"];
  CHECK(probe["driver"] == "redfish");
  CHECK(probe["endpoint"] == endpoint);
  REQUIRE(probe["attempts"].size() == 1);
  CHECK(probe["attempts"][0]["outcome"] == "Redfish service root");
}

TEST_CASE("auto enrollment of a host that only answers IPMI stores an ipmi node",
          "[web][nodes][auto][ipmi_sim]") {
  if (auto why = IpmiSim::unavailable()) {
    WARN("skipped: " << *why);
    return;
  }
  IpmiSim sim("127.0.82.2");
  TestServer server({}, probe_at(free_tcp_port("127.0.82.2"), sim.port()));
  auto body = auto_enrollment("auto-ipmi", "127.0.82.2");
  body["options"] = {{"privilege", "operator"}};  // an IPMI option: valid once IPMI answered
  const auto res = enroll(server, body);
  INFO(res.body);
  REQUIRE(res.status == 201);
  const auto node = res.json();
  CHECK(node["driver"] == "ipmi");
  CHECK(node["endpoint"] == "ipmi://127.0.82.2:" + std::to_string(sim.port()));
  CHECK(node["options"]["privilege"] == "operator");

  const auto probe = last_enrollment_audit(server)["probe"];
  CHECK(probe["driver"] == "ipmi");
  REQUIRE(probe["attempts"].size() == 2);
  CHECK(probe["attempts"][0]["outcome"] == "connection refused");
  CHECK(probe["attempts"][1]["outcome"] == "IPMI BMC (channel 1, IPMI v2.0)");
}

TEST_CASE("auto enrollment where nothing answers is 422 listing every attempt",
          "[web][nodes][auto]") {
  const auto https_port = free_tcp_port("127.0.82.3");
  const auto ipmi_port = free_udp_port("127.0.82.3");
  TestServer server({}, probe_at(https_port, ipmi_port));
  const auto res = enroll(server, auto_enrollment("auto-none", "127.0.82.3"));
  INFO(res.body);
  REQUIRE(res.status == 422);
  CHECK(res.header("content-type") == "application/problem+json");
  const auto problem = res.json();
  CHECK(problem["field"] == "endpoint");
  CHECK(problem["detail"] ==
        "no BMC answered at 127.0.82.3: redfish https://127.0.82.3:" + std::to_string(https_port) +
            ": connection refused; ipmi " + "127.0.82.3:" + std::to_string(ipmi_port) +
            ": port unreachable (ICMP)");
  CHECK(http_get(server.port(), "/api/v1/nodes", server.token("viewer")).json()["items"].empty());
  const auto probe = last_enrollment_audit(server)["probe"];
  CHECK(probe["driver"].is_null());
  CHECK(probe["attempts"].size() == 2);
}

TEST_CASE("an HTTPS 200 that is not Redfish and a junk UDP reply are not taken for BMCs",
          "[web][nodes][auto]") {
  TlsTestServer web("127.0.82.4", CannedResponse{200, "application/json", R"({"hello":1})"});
  UdpResponder junk("127.0.82.4", {0x06, 0x00, 0xFF, 0x07, 0xDE, 0xAD, 0xBE, 0xEF});
  TestServer server({}, probe_at(web.port(), junk.port()));
  const auto res = enroll(server, auto_enrollment("auto-junk", "127.0.82.4"));
  INFO(res.body);
  REQUIRE(res.status == 422);
  const std::string detail = res.json()["detail"];
  CHECK_THAT(detail, Catch::Contains("HTTP 200, but the body is not a Redfish service root"));
  CHECK_THAT(detail, Catch::Contains("answered, but not as an IPMI BMC"));
  CHECK(http_get(server.port(), "/api/v1/nodes", server.token("viewer")).json()["items"].empty());
}

TEST_CASE("auto enrollment checks options against the transport that answered",
          "[web][nodes][auto]") {
  TlsTestServer redfish("127.0.82.5", CannedResponse{200, "application/json", kServiceRoot});
  TestServer server({}, probe_at(redfish.port(), free_udp_port("127.0.82.5")));
  auto body = auto_enrollment("auto-opts", "127.0.82.5");
  body["options"] = {{"privilege", "admin"}};
  const auto res = enroll(server, body);
  INFO(res.body);
  REQUIRE(res.status == 422);
  CHECK(res.json()["field"] == "options.privilege");
  CHECK_THAT(res.json()["detail"].get<std::string>(),
             Catch::Contains("127.0.82.5 answered redfish") &&
                 Catch::Contains("applies to ipmi:// endpoints only"));
}

TEST_CASE("auto enrollment of a bare host with a port asks for the transport",
          "[web][nodes][auto]") {
  TestServer server({}, probe_at(free_tcp_port("127.0.82.6"), free_udp_port("127.0.82.6")));
  const auto res = enroll(server, auto_enrollment("auto-port", "127.0.82.6:8443"));
  INFO(res.body);
  REQUIRE(res.status == 422);
  CHECK(res.json()["field"] == "endpoint");
  CHECK_THAT(res.json()["detail"].get<std::string>(),
             Catch::Contains("https://127.0.82.6:8443 (Redfish) or ipmi://127.0.82.6:8443"));
}

}  // namespace auto_enroll_test

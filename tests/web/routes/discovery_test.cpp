// POST /api/v1/discovery and the runs it starts: real peers on loopback (an HTTPS server answering
// a Redfish service root, an IPMI peer — OpenIPMI's ipmi_sim when this machine has it, else a UDP
// socket answering Get Channel Authentication Capabilities as a BMC does — and closed ports), a
// real service and PostgreSQL. Each test case has its own 127.0.85.x addresses (ctest runs them
// in parallel).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <thread>

#include "inventory/crypto/primitives.hpp"
#include "tests/support/server/bmc_peers.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "tests/support/server/tls_test_server.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace discovery_test {

using namespace ironhold::test;
using nlohmann::json;

namespace {

const char* kServiceRoot = R"({"@odata.id": "/redfish/v1/", "RedfishVersion": "1.11.0"})";
const char* kPassword = "s3cret-discovery-pw";

// What a BMC answers to the session-less Get Channel Authentication Capabilities (channel 1,
// IPMI v2.0 extended data): RMCP, IPMI v1.5 session header, and the 16-byte LAN message.
const std::vector<std::uint8_t> kAuthCapsReply = {
    0x06, 0x00, 0xFF, 0x07,                          // RMCP: version, reserved, no ACK, class IPMI
    0x00,                                            // authentication type none
    0x00, 0x00, 0x00, 0x00,                          // session sequence
    0x00, 0x00, 0x00, 0x00,                          // session id
    0x10,                                            // message length 16
    0x81, 0x1C, 0x63,                                // to the console, netFn App response, checksum
    0x20, 0x00, 0x38,                                // from the BMC, sequence 0, the command
    0x00,                                            // completion code
    0x01, 0x84, 0x04, 0x02, 0x00, 0x00, 0x00, 0x00,  // channel 1, IPMI v2.0 extended data
    0x1D};                                           // checksum

// An IPMI BMC on UDP address:port: ipmi_sim when available, else the canned answer.
class IpmiPeer {
 public:
  explicit IpmiPeer(const std::string& address) {
    if (!IpmiSim::unavailable())
      sim_ = std::make_unique<IpmiSim>(address);
    else
      canned_ = std::make_unique<UdpResponder>(address, kAuthCapsReply);
  }
  unsigned short port() const { return sim_ ? sim_->port() : canned_->port(); }

 private:
  std::unique_ptr<IpmiSim> sim_;
  std::unique_ptr<UdpResponder> canned_;
};

// A UDP port that takes datagrams and never answers: a probe there waits for its timeout.
class SilentUdp {
 public:
  explicit SilentUdp(const std::string& address) {
    fd_ = ::socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    ::inet_pton(AF_INET, address.c_str(), &addr.sin_addr);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~SilentUdp() { ::close(fd_); }
  unsigned short port() const { return port_; }

 private:
  int fd_ = -1;
  unsigned short port_ = 0;
};

HttpResult start(TestServer& server, const json& body, const std::string& role = "operator") {
  return http_send(server.port(), "POST", "/api/v1/discovery", body, server.token(role));
}

// Polls the run until it has finished (or 30 s passed).
json wait_for_run(TestServer& server, const std::string& id) {
  const auto token = server.token("viewer");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    const auto res = http_get(server.port(), "/api/v1/discovery/" + id, token);
    INFO(res.body);
    REQUIRE(res.status == 200);
    json run = res.json();
    if (run["state"] == "succeeded" || run["state"] == "failed") return run;
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

json run_to_end(TestServer& server, const json& body) {
  const auto res = start(server, body);
  INFO(res.body);
  REQUIRE(res.status == 202);
  return wait_for_run(server, res.json()["id"]);
}

const json* result_for(const json& run, const std::string& address) {
  for (const auto& r : run["results"])
    if (r["address"] == address) return &r;
  return nullptr;
}

std::string audit_body(TestServer& server) {
  const auto res = http_get(server.port(), "/api/v1/audit?limit=200", server.token("auditor"));
  REQUIRE(res.status == 200);
  return res.body;
}

}  // namespace

TEST_CASE("a discovery reports the Redfish and IPMI BMCs that answered, not the silent addresses",
          "[web][discovery]") {
  TlsTestServer redfish("127.0.85.1", CannedResponse{200, "application/json", kServiceRoot});
  IpmiPeer ipmi("127.0.85.2");
  TestServer server;
  const json body = {{"addresses", "127.0.85.1-127.0.85.4"},
                     {"ports", {redfish.port(), ipmi.port()}},
                     {"credentials", {{"username", "admin"}, {"password", kPassword}}},
                     {"timeout_ms", 1000}};
  const auto res = start(server, body);
  INFO(res.body);
  REQUIRE(res.status == 202);
  const json accepted = res.json();
  const std::string id = accepted["id"];
  CHECK(res.header("location") == "/api/v1/discovery/" + id);
  CHECK((accepted["state"] == "queued" || accepted["state"] == "running"));
  CHECK(accepted["addresses"] == 4);
  CHECK(accepted["requested_by"].get<std::string>().rfind("operator-", 0) == 0);

  const json run = wait_for_run(server, id);
  INFO(run.dump());
  CHECK(run["state"] == "succeeded");
  CHECK(
      run["counts"] ==
      json({{"probed", 4}, {"found", 2}, {"enrolled", 0}, {"already_enrolled", 0}, {"errors", 0}}));
  CHECK(run["started_at"].is_string());
  CHECK(run["finished_at"].is_string());
  CHECK(run["parameters"]["addresses"] == "127.0.85.1-127.0.85.4");
  CHECK(run["parameters"]["credentials"] == json({{"username", "admin"}}));
  REQUIRE(run["results"].size() == 2);
  const json* rf = result_for(run, "127.0.85.1");
  REQUIRE(rf);
  CHECK((*rf)["driver"] == "redfish");
  CHECK((*rf)["endpoint"] == "https://127.0.85.1:" + std::to_string(redfish.port()));
  CHECK((*rf)["port"] == redfish.port());
  CHECK((*rf)["status"] == "found");
  CHECK((*rf)["detail"] == "Redfish service root");
  const json* ip = result_for(run, "127.0.85.2");
  REQUIRE(ip);
  CHECK((*ip)["driver"] == "ipmi");
  CHECK((*ip)["endpoint"] == "ipmi://127.0.85.2:" + std::to_string(ipmi.port()));
  CHECK((*ip)["status"] == "found");
  CHECK_FALSE(result_for(run, "127.0.85.3"));
  CHECK_FALSE(result_for(run, "127.0.85.4"));
  // Reported, not enrolled.
  CHECK(http_get(server.port(), "/api/v1/nodes", server.token("viewer")).json()["items"].empty());
  // The probe sent no credentials.
  for (const auto& r : redfish.requests()) CHECK_FALSE(r.headers.count("authorization"));

  const auto list = http_get(server.port(), "/api/v1/discovery", server.token("viewer"));
  REQUIRE(list.status == 200);
  REQUIRE(list.json()["items"].size() == 1);
  CHECK(list.json()["items"][0]["id"] == id);
  CHECK(list.json()["items"][0]["state"] == "succeeded");

  CHECK(res.body.find(kPassword) == std::string::npos);
  CHECK(run.dump().find(kPassword) == std::string::npos);
  CHECK(list.body.find(kPassword) == std::string::npos);
  CHECK(audit_body(server).find(kPassword) == std::string::npos);
}

TEST_CASE("a discovery with enroll enrolls what answered, a second one finds them already enrolled",
          "[web][discovery]") {
  TlsTestServer redfish("127.0.85.5", CannedResponse{200, "application/json", kServiceRoot});
  IpmiPeer ipmi("127.0.85.6");
  TestServer server;
  const json body = {{"addresses", "127.0.85.4/30"},  // .5 and .6
                     {"ports", {redfish.port(), ipmi.port()}},
                     {"credentials", {{"username", "admin"}, {"password", kPassword}}},
                     {"enroll", true},
                     {"name_prefix", "lab-"},
                     {"tags", {{"rack", "R9"}}},
                     {"timeout_ms", 1000}};
  const json first = run_to_end(server, body);
  INFO(first.dump());
  CHECK(first["state"] == "succeeded");
  CHECK(first["addresses"] == 2);
  CHECK(
      first["counts"] ==
      json({{"probed", 2}, {"found", 2}, {"enrolled", 2}, {"already_enrolled", 0}, {"errors", 0}}));
  const std::string rf_name = "lab-127-0-85-5-" + std::to_string(redfish.port());
  const std::string ipmi_name = "lab-127-0-85-6-" + std::to_string(ipmi.port());
  const json* rf = result_for(first, "127.0.85.5");
  const json* ip = result_for(first, "127.0.85.6");
  REQUIRE(rf);
  REQUIRE(ip);
  CHECK((*rf)["status"] == "enrolled");
  CHECK((*rf)["node_name"] == rf_name);
  CHECK((*ip)["status"] == "enrolled");
  CHECK((*ip)["node_name"] == ipmi_name);

  const auto viewer = server.token("viewer");
  const json rf_node = http_get(server.port(), "/api/v1/nodes/" + rf_name, viewer).json();
  CHECK(rf_node["id"] == (*rf)["node_id"]);
  CHECK(rf_node["driver"] == "redfish");
  CHECK(rf_node["endpoint"] == (*rf)["endpoint"]);
  CHECK(rf_node["credentials_set"] == true);
  CHECK(rf_node["tags"] == json({{"rack", "R9"}}));
  const json ipmi_node = http_get(server.port(), "/api/v1/nodes/" + ipmi_name, viewer).json();
  CHECK(ipmi_node["driver"] == "ipmi");
  CHECK(ipmi_node["endpoint"] == "ipmi://127.0.85.6:" + std::to_string(ipmi.port()));

  // Audited as enrollments in the requester's name, without the password.
  const std::string audit = audit_body(server);
  const json entries = json::parse(audit)["items"];
  int enrollments = 0;
  for (const auto& e : entries) {
    if (e["action"] != "discovery.enroll") continue;
    ++enrollments;
    CHECK(e["actor"].get<std::string>().rfind("operator-", 0) == 0);
    CHECK(e["outcome"] == "ok");
    CHECK(e["details"]["discovery_id"] == first["id"]);
  }
  CHECK(enrollments == 2);
  CHECK(audit.find(kPassword) == std::string::npos);

  const json second = run_to_end(server, body);
  INFO(second.dump());
  CHECK(second["state"] == "succeeded");
  CHECK(
      second["counts"] ==
      json({{"probed", 2}, {"found", 2}, {"enrolled", 0}, {"already_enrolled", 2}, {"errors", 0}}));
  const json* again = result_for(second, "127.0.85.5");
  REQUIRE(again);
  CHECK((*again)["status"] == "already_enrolled");
  CHECK((*again)["node_id"] == rf_node["id"]);
  CHECK(http_get(server.port(), "/api/v1/nodes", viewer).json()["items"].size() == 2);
}

TEST_CASE("a name taken by another node is an error for that address, not a failed run",
          "[web][discovery]") {
  TlsTestServer redfish("127.0.85.7", CannedResponse{200, "application/json", kServiceRoot});
  TestServer server;
  const std::string name = "bmc-127-0-85-7-" + std::to_string(redfish.port());
  const auto taken =
      http_send(server.port(), "POST", "/api/v1/nodes",
                {{"name", name}, {"driver", "redfish"}, {"endpoint", "https://192.0.2.7"}},
                server.token("operator"));
  REQUIRE(taken.status == 201);
  const json run =
      run_to_end(server, {{"addresses", "127.0.85.7-127.0.85.8"},
                          {"ports", {redfish.port()}},
                          {"credentials", {{"username", "admin"}, {"password", kPassword}}},
                          {"enroll", true},
                          {"timeout_ms", 1000}});
  INFO(run.dump());
  CHECK(run["state"] == "succeeded");
  CHECK(run["counts"]["found"] == 1);
  CHECK(run["counts"]["enrolled"] == 0);
  CHECK(run["counts"]["errors"] == 1);
  const json* r = result_for(run, "127.0.85.7");
  REQUIRE(r);
  CHECK((*r)["status"] == "error");
  CHECK_THAT((*r)["detail"].get<std::string>(), Catch::Contains("already exists"));
  CHECK(http_get(server.port(), "/api/v1/nodes", server.token("viewer")).json()["items"].size() ==
        1);
}

TEST_CASE("discovery requests are validated, naming the field", "[web][discovery]") {
  TestServer server;
  const json creds = {{"username", "admin"}, {"password", kPassword}};
  struct Case {
    json body;
    int status;
    std::string field;
    std::string detail;
  };
  const std::vector<Case> cases = {
      {{{"ports", {443}}}, 400, "addresses", "is required"},
      {{{"addresses", 5}}, 400, "addresses", "must be a string"},
      {{{"addresses", "127.0.85.9-127.0.85"}}, 422, "addresses", "is not an IPv4 or IPv6"},
      {{{"addresses", "127.0.85.9-127.0.85.1"}}, 422, "addresses", "ends before it starts"},
      {{{"addresses", "127.0.85.9-::1"}}, 422, "addresses", "mixes IPv4 and IPv6"},
      {{{"addresses", "10.0.0.0-10.0.255.255"}}, 422, "addresses", "covers 65536 addresses"},
      {{{"addresses", "10.0.0.0/8"}}, 422, "addresses", "at most 4096"},
      {{{"addresses", "10.0.0.0/33"}}, 422, "addresses", "no valid prefix length"},
      {{{"addresses", "10.0.0.5/24"}}, 422, "addresses", "host bits set: the block is 10.0.0.0/24"},
      {{{"addresses", "fe80::/100"}}, 422, "addresses", "at most 4096"},
      {{{"addresses", "127.0.85.9"}, {"enroll", true}}, 422, "credentials", "required"},
      {{{"addresses", "127.0.85.9"}, {"enroll", "yes"}}, 400, "enroll", "a boolean"},
      {{{"addresses", "127.0.85.9"}, {"ports", {0}}}, 422, "ports[0]", "1 to 65535"},
      {{{"addresses", "127.0.85.9"}, {"ports", {443, 70000}}}, 422, "ports[1]", "1 to 65535"},
      {{{"addresses", "127.0.85.9"}, {"ports", {443, 443}}}, 422, "ports[1]", "repeats"},
      {{{"addresses", "127.0.85.9"}, {"ports", json::array()}}, 422, "ports", "1 to 8"},
      {{{"addresses", "127.0.85.9"}, {"ports", {1, 2, 3, 4, 5, 6, 7, 8, 9}}},
       422,
       "ports",
       "1 to 8"},
      {{{"addresses", "127.0.85.9"}, {"ports", "443"}}, 400, "ports", "an array"},
      {{{"addresses", "127.0.85.9"}, {"ports", {"443"}}}, 400, "ports[0]", "an integer"},
      {{{"addresses", "127.0.85.9"}, {"concurrency", 0}}, 422, "concurrency", "from 1 to 128"},
      {{{"addresses", "127.0.85.9"}, {"concurrency", 129}}, 422, "concurrency", "from 1 to 128"},
      {{{"addresses", "127.0.85.9"}, {"timeout_ms", 5}}, 422, "timeout_ms", "from 100"},
      {{{"addresses", "127.0.85.9"}, {"name_prefix", "-x"}}, 422, "name_prefix", "starting with"},
      {{{"addresses", "127.0.85.9"}, {"credentials", {{"username", "a"}}}},
       400,
       "credentials.password",
       "must be a string"},
      {{{"addresses", "127.0.85.9"}, {"credentials", creds}, {"tags", {{"a:b", "c"}}}},
       422,
       "tags.a:b",
       "without ':'"},
      {{{"addresses", "127.0.85.9"}, {"subnet", "x"}}, 422, "subnet", "unknown field"},
  };
  const auto token = server.token("operator");
  for (const auto& c : cases) {
    const auto res = http_send(server.port(), "POST", "/api/v1/discovery", c.body, token);
    INFO(c.body.dump() << " -> " << res.status << " " << res.body);
    CHECK(res.status == c.status);
    CHECK(res.header("content-type") == "application/problem+json");
    const json problem = res.json();
    CHECK(problem["field"] == c.field);
    CHECK_THAT(problem["detail"].get<std::string>(), Catch::Contains(c.detail));
    CHECK(res.body.find(kPassword) == std::string::npos);
  }
  // None of them started a run.
  CHECK(http_get(server.port(), "/api/v1/discovery", token).json()["items"].empty());
}

TEST_CASE("discovery needs the role that enrolls nodes, unknown runs are 404", "[web][discovery]") {
  TestServer server;
  const json body = {{"addresses", "127.0.85.10"}, {"ports", {free_tcp_port("127.0.85.10")}}};
  const auto refused = start(server, body, "viewer");
  INFO(refused.body);
  CHECK(refused.status == 403);
  CHECK(http_send(server.port(), "POST", "/api/v1/discovery", body, std::nullopt).status == 401);
  const auto viewer = server.token("viewer");
  CHECK(http_get(server.port(), "/api/v1/discovery", viewer).json()["items"].empty());
  CHECK(http_get(server.port(), "/api/v1/discovery/00000000-0000-4000-8000-000000000000", viewer)
            .status == 404);
  CHECK(http_get(server.port(), "/api/v1/discovery/not-a-run", viewer).status == 404);
  // An admin may (roles above operator include it).
  CHECK(start(server, body, "admin").status == 202);
}

TEST_CASE("a run cut short by a shutdown is failed, as the next instance reports it",
          "[web][discovery]") {
  SilentUdp silent("127.0.85.11");
  TestDatabase database;
  ironhold::app::ServiceConfig config;
  config.database_url = database.url();
  ironhold::crypto::random_bytes(config.master_key);
  config.listen = "127.0.0.1:0";
  config.poller_enabled = false;

  auto first = std::make_unique<ironhold::app::ServiceHost>(config);
  auto port = first->start().port();
  const auto op = first->tokens().create("op", ironhold::Role::operator_, "test").secret;
  const auto res = http_send(port, "POST", "/api/v1/discovery",
                             {{"addresses", "127.0.85.11-127.0.85.12"},
                              {"ports", {silent.port()}},
                              {"concurrency", 1},
                              {"timeout_ms", 3000}},
                             op);
  INFO(res.body);
  REQUIRE(res.status == 202);
  const std::string id = res.json()["id"];
  // Wait until the first probe is under way (it waits 3 s for the silent port), then shut down.
  for (int i = 0; i < 100; ++i) {
    if (http_get(port, "/api/v1/discovery/" + id, op).json()["state"] == "running") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  first.reset();

  // Another instance on the same database.
  ironhold::app::ServiceHost next(config);
  port = next.start().port();
  const auto viewer = next.tokens().create("viewer", ironhold::Role::viewer, "test").secret;
  const auto after = http_get(port, "/api/v1/discovery/" + id, viewer);
  INFO(after.body);
  REQUIRE(after.status == 200);
  CHECK(after.json()["state"] == "failed");
  CHECK_THAT(after.json()["error"].get<std::string>(), Catch::Contains("interrupted"));
  CHECK(after.json()["finished_at"].is_string());
  // The address under way when it stopped was finished; the next one never started.
  CHECK(after.json()["counts"]["probed"].get<int>() <= 1);
  next.stop();
}

}  // namespace discovery_test

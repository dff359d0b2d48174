// The whole path: a simulated Redfish BMC (sim/, from the DMTF public-rackmount1 mockup) over real
// HTTPS, the real Redfish driver, the poller with its schedule in a real PostgreSQL, and the API
// over real HTTP. Expected values are read from the mockup files here, not from the code.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "sim/redfish/fleet.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "tests/web/poller/poller_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace poller_e2e_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path mockup_dir = fs::path(IRONHOLD_SHARED_DIR) / "redfish-mockups" / "public-rackmount1";

bool have_mockup() {
  if (fs::exists(mockup_dir / "index.json")) return true;
  WARN("skipped: no Redfish mockups at " << mockup_dir.string());
  return false;
}

// A document of a mockup tree by its URL path (the DMTF layout: <dir>/<path>/index.json).
json read_mockup(const fs::path& dir, const std::string& url_path) {
  std::string rel = url_path.substr(std::string("/redfish/v1").size());
  std::ifstream in(dir / fs::path(rel.empty() ? "" : rel.substr(1)) / "index.json");
  return json::parse(in, nullptr, false);
}

json mockup(const std::string& url_path) {
  return read_mockup(mockup_dir, url_path);
}

sim::RedfishFleetOptions fleet_options(unsigned count, const fs::path& dir = mockup_dir) {
  sim::RedfishFleetOptions o;
  o.mockup_dir = dir;
  o.count = count;
  o.reset_delay = 200ms;
  return o;
}

std::string enroll(TestServer& server, const std::string& token, const std::string& name,
                   const std::string& endpoint, const std::string& password = "password") {
  const auto res = http_send(server.port(), "POST", "/api/v1/nodes",
                             {{"name", name},
                              {"driver", "redfish"},
                              {"endpoint", endpoint},
                              {"credentials", {{"username", "admin"}, {"password", password}}}},
                             token);
  INFO(res.body);
  REQUIRE(res.status == 201);
  return res.json()["id"];
}

// The hardware summary by the definitions, computed from the mockup files.
struct Expected {
  int cpu_count = 0;
  int gpu_count = 0;
  double memory_gib = 0;
};

Expected expected_summary(const fs::path& dir, const std::string& system_path) {
  Expected e;
  const json system = read_mockup(dir, system_path);
  const json processors = read_mockup(dir, system["Processors"]["@odata.id"]);
  for (const auto& member : processors["Members"]) {
    const json p = read_mockup(dir, member["@odata.id"]);
    if (p.value("Status", json::object()).value("State", "") == "Absent") continue;
    if (p.value("ProcessorType", "") == "CPU") ++e.cpu_count;
    if (p.value("ProcessorType", "") == "GPU") ++e.gpu_count;
  }
  e.memory_gib = system["MemorySummary"]["TotalSystemMemoryGiB"].get<double>();
  return e;
}

}  // namespace

TEST_CASE("an enrolled simulated BMC fills the inventory through the poller", "[poller][e2e]") {
  if (!have_mockup()) return;
  sim::RedfishFleet fleet(fleet_options(1));
  fleet.start();
  TestServer server({}, {}, fast_poller());
  const auto token = server.token("operator");
  const std::string id = enroll(server, token, "rack1-u1", fleet.endpoint(0));

  const json node = wait_for_node(server, token, id, [](const json& n) {
    return !n["last_inspected"].is_null() && n["power_state"] != "unknown";
  });
  INFO(node.dump(2));
  const std::string system_path = mockup("/redfish/v1/Systems")["Members"][0]["@odata.id"];
  const json system = mockup(system_path);
  const Expected expected = expected_summary(mockup_dir, system_path);
  CHECK(node["reachable"] == true);
  CHECK(node["last_error"].is_null());
  CHECK(node["manufacturer"] == system["Manufacturer"]);
  CHECK(node["model"] == system["Model"]);
  CHECK(node["serial"] == sim::redfish::unique_serial(system["SerialNumber"], 0));
  CHECK(node["power_state"] == (system["PowerState"] == "On" ? "on" : "off"));
  CHECK(node["hardware"]["cpu_count"] == expected.cpu_count);
  CHECK(node["hardware"]["gpu_count"] == expected.gpu_count);
  CHECK(node["hardware"]["memory_gib"] == expected.memory_gib);
  CHECK(node["tls_fingerprint"] == fleet.certificate_fingerprint(0));
  CHECK(node["identity"]["bios_version"] == system["BiosVersion"]);

  // Firmware: every FirmwareInventory member, by Id and version.
  const auto firmware =
      http_get(server.port(), "/api/v1/nodes/" + id + "/firmware", token).json()["items"];
  const json inventory = mockup("/redfish/v1/UpdateService/FirmwareInventory");
  for (const auto& member : inventory["Members"]) {
    const json item = mockup(member["@odata.id"]);
    bool found = false;
    for (const auto& f : firmware)
      if (f["component"] == item["Id"]) {
        found = true;
        CHECK(f["version"] == item["Version"]);
        CHECK(f["updateable"] == item.value("Updateable", false));
      }
    INFO(item["Id"]);
    CHECK(found);
  }
  const auto components =
      http_get(server.port(), "/api/v1/nodes/" + id + "/components", token).json()["items"];
  int cpus = 0;
  for (const auto& c : components) cpus += c["kind"] == "cpu";
  CHECK(cpus == expected.cpu_count);
  const auto sensors =
      http_get(server.port(), "/api/v1/nodes/" + id + "/sensors", token).json()["items"];
  CHECK(sensors.size() > 0);
  const auto events =
      http_get(server.port(), "/api/v1/nodes/" + id + "/events?kind=sel", token).json()["items"];
  CHECK(events.size() > 0);

  // The fleet view: metrics, GPU filter, fleet-wide event search.
  const auto metrics = http_get(server.port(), "/metrics", token);
  REQUIRE(metrics.status == 200);
  CHECK(metrics.body.find("ironhold_node_reachable{node=\"rack1-u1\"") != std::string::npos);
  CHECK(metrics.body.find("ironhold_poll_duration_seconds_count{kind=\"status\"}") !=
        std::string::npos);
  const auto fleet_events =
      http_get(server.port(), "/api/v1/events?node=rack1-u1&severity=warning,critical,info", token);
  REQUIRE(fleet_events.status == 200);
  CHECK(fleet_events.json()["items"].size() > 0);

  // Power changes on the BMC show in the next status poll.
  const auto systems = fleet.state(0).systems();
  REQUIRE_FALSE(systems.empty());
  fleet.state(0).set_power("", "Off");
  const json off =
      wait_for_node(server, token, id, [](const json& n) { return n["power_state"] == "off"; });
  CHECK(off["power_state"] == "off");

  // Inspect on demand answers 202 and the inspection runs again.
  const std::string first_inspection = node["last_inspected"];
  const auto inspect =
      http_send(server.port(), "POST", "/api/v1/nodes/" + id + "/inspect", json::object(), token);
  CHECK(inspect.status == 202);
  const json again = wait_for_node(server, token, id, [&](const json& n) {
    return n["last_inspected"].is_string() && n["last_inspected"] != first_inspection;
  });
  CHECK(again["last_inspected"] != first_inspection);
}

TEST_CASE("wrong credentials lead to auth_failed without a login storm", "[poller][e2e]") {
  if (!have_mockup()) return;
  sim::RedfishFleet fleet(fleet_options(2));
  fleet.start();
  TestServer server({}, {}, fast_poller());
  const auto token = server.token("operator");
  const std::string bad = enroll(server, token, "wrong-pw", fleet.endpoint(0), "not-the-password");
  const std::string good = enroll(server, token, "right-pw", fleet.endpoint(1));
  const json node = wait_for_node(server, token, bad,
                                  [](const json& n) { return n["last_error"] == "auth_failed"; });
  CHECK(node["last_error"] == "auth_failed");
  CHECK(node["reachable"] == true);
  // Several poll intervals later, still one failed login at the BMC.
  std::this_thread::sleep_for(4s);
  CHECK(fleet.state(0).counters().failed_logins == 1);
  // The healthy BMC next to it is unaffected.
  const json ok = wait_for_node(server, token, good,
                                [](const json& n) { return !n["last_inspected"].is_null(); });
  CHECK(ok["last_error"].is_null());
  // New credentials are tried at once.
  const auto patched =
      http_send(server.port(), "PATCH", "/api/v1/nodes/" + bad,
                {{"credentials", {{"username", "admin"}, {"password", "password"}}}}, token);
  REQUIRE(patched.status == 200);
  const json fixed =
      wait_for_node(server, token, bad, [](const json& n) { return n["last_error"].is_null(); });
  CHECK(fixed["last_error"].is_null());
}

TEST_CASE("a changed BMC certificate is refused before any credential is sent, until re-pinned",
          "[poller][e2e]") {
  if (!have_mockup()) return;
  sim::RedfishFleet fleet(fleet_options(1));
  fleet.start();
  TestServer server({}, {}, fast_poller());
  const auto token = server.token("operator");
  const auto admin = server.token("admin");
  const std::string id = enroll(server, token, "pinned", fleet.endpoint(0));
  wait_for_node(server, token, id, [](const json& n) { return !n["last_inspected"].is_null(); });
  const auto logins_before =
      fleet.state(0).counters().successful_logins + fleet.state(0).counters().failed_logins;

  // The BMC is swapped: a new certificate, its connections dropped (while it was away, polls
  // failed), no old session.
  const std::string new_fingerprint = fleet.change_certificate(0);
  sim::redfish::Faults away;
  away.reset_connections = true;
  fleet.set_faults(0, away);
  wait_for_node(server, token, id, [](const json& n) { return !n["last_error"].is_null(); });
  fleet.state(0).expire_sessions();
  fleet.clear_faults(0);
  const json refused = wait_for_node(
      server, token, id, [](const json& n) { return n["last_error"] == "tls_pin_mismatch"; });
  CHECK(refused["last_error"] == "tls_pin_mismatch");
  CHECK(refused["reachable"] == false);
  std::this_thread::sleep_for(2s);
  const auto counters = fleet.state(0).counters();
  CHECK(counters.successful_logins + counters.failed_logins == logins_before);
  const auto events =
      http_get(server.port(), "/api/v1/nodes/" + id + "/events?kind=tls_pin_mismatch", token)
          .json();
  CHECK(events["items"].size() == 1);

  CHECK(
      http_send(server.port(), "POST", "/api/v1/nodes/" + id + "/tls/repin", json::object(), token)
          .status == 403);
  const auto repin =
      http_send(server.port(), "POST", "/api/v1/nodes/" + id + "/tls/repin", json::object(), admin);
  REQUIRE(repin.status == 200);
  const json repinned = wait_for_node(server, token, id, [&](const json& n) {
    return n["tls_fingerprint"] == new_fingerprint && n["last_error"].is_null();
  });
  CHECK(repinned["tls_fingerprint"] == new_fingerprint);
  CHECK(repinned["reachable"] == true);
}

TEST_CASE("every DMTF mockup enrolls through the simulator and matches its files",
          "[poller][e2e]") {
  if (!have_mockup()) return;
  for (const auto& entry : fs::directory_iterator(mockup_dir.parent_path())) {
    const fs::path dir = entry.path();
    if (!fs::exists(dir / "index.json")) continue;
    INFO(dir.string());
    sim::RedfishFleet fleet(fleet_options(1, dir));
    fleet.start();
    TestServer server({}, {}, fast_poller());
    const auto token = server.token("operator");
    const std::string id = enroll(server, token, "m-" + dir.filename().string(), fleet.endpoint(0));
    const json node = wait_for_node(server, token, id,
                                    [](const json& n) { return !n["last_inspected"].is_null(); });
    INFO(node.dump(2));
    REQUIRE_FALSE(node["last_inspected"].is_null());
    const json systems = read_mockup(dir, "/redfish/v1/Systems");
    const std::string system_path = systems["Members"][0]["@odata.id"];
    const json system = read_mockup(dir, system_path);
    const Expected expected = expected_summary(dir, system_path);
    CHECK(node["hardware"]["cpu_count"] == expected.cpu_count);
    CHECK(node["hardware"]["gpu_count"] == expected.gpu_count);
    CHECK(node["hardware"]["memory_gib"] == expected.memory_gib);
    CHECK(node["manufacturer"] == system.value("Manufacturer", json(nullptr)));
    CHECK(node["model"] == system.value("Model", json(nullptr)));
    if (system.contains("SerialNumber"))
      CHECK(node["serial"] == sim::redfish::unique_serial(system["SerialNumber"], 0));
    // Every firmware item the service lists is in the inventory with its version.
    const json root = read_mockup(dir, "/redfish/v1");
    if (root.contains("UpdateService")) {
      const json update = read_mockup(dir, root["UpdateService"]["@odata.id"]);
      const json inventory = read_mockup(dir, update["FirmwareInventory"]["@odata.id"]);
      const auto firmware =
          http_get(server.port(), "/api/v1/nodes/" + id + "/firmware", token).json()["items"];
      for (const auto& member : inventory["Members"]) {
        const json item = read_mockup(dir, member["@odata.id"]);
        bool found = false;
        for (const auto& f : firmware)
          found = found || (f["component"] == item["Id"] && f["version"] == item["Version"]);
        INFO(item["Id"]);
        CHECK(found);
      }
    }
  }
}

}  // namespace poller_e2e_test

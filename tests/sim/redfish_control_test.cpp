// The simulator's control side: the HTTP control API and the same operations in-process — power,
// health, SEL, sessions, counters, certificate change — each checked on the BMC's Redfish service.
#include <catch2/catch.hpp>
#include <thread>

#include "curl_client.hpp"
#include "inventory/error.hpp"
#include "sim/tls_cert.hpp"
#include "sim_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace redfish_control_test {

using namespace std::chrono_literals;
using ironhold::test::control_call;
using ironhold::test::curl_fetch;
using ironhold::test::CurlCall;
using ironhold::test::rackmount_system;
using nlohmann::json;

namespace {

ironhold::sim::RedfishFleetOptions with_control(unsigned count) {
  auto o = ironhold::test::fleet_options(count);
  o.control = "127.0.0.1:0";
  return o;
}

const std::string sel_entries = rackmount_system + "/LogServices/Log1/Entries";

}  // namespace

TEST_CASE("the control API lists BMCs and sets faults that the BMC shows",
          "[sim][redfish][control]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  ironhold::sim::RedfishFleet fleet(with_control(2));
  fleet.start();
  const std::string control = fleet.control_endpoint();
  REQUIRE(control.rfind("http://127.0.0.1:", 0) == 0);

  const auto list = control_call(control + "/bmcs", "GET");
  REQUIRE(list.status == 200);
  const json bmcs = list.doc()["bmcs"];
  REQUIRE(bmcs.size() == 2);
  CHECK(bmcs[1]["index"] == 1);
  CHECK(bmcs[1]["endpoint"] == fleet.endpoint(1));
  CHECK(bmcs[0]["systems"][0]["power_state"] == "On");
  CHECK(bmcs[0]["systems"][0]["id"] == "437XR1138R2");
  CHECK(bmcs[0]["faults"].empty());
  CHECK(bmcs[0]["certificate_sha256"].get<std::string>().size() == 64);

  const auto set = control_call(control + "/bmcs/0/faults", "PUT", {{"invalid_json", true}});
  CHECK(set.status == 200);
  CHECK(set.doc()["invalid_json"] == true);
  CHECK(curl_fetch(fleet.endpoint(0) + "/redfish/v1/Systems").doc().is_discarded());
  CHECK(curl_fetch(fleet.endpoint(1) + "/redfish/v1/Systems").doc().contains("Members"));
  CHECK(control_call(control + "/bmcs/0", "GET").doc()["faults"] == json({"invalid_json"}));
  // POST merges, PUT replaces.
  control_call(control + "/bmcs/0/faults", "POST", {{"latency_ms", 10}});
  CHECK(fleet.state(0).faults().invalid_json);
  CHECK(fleet.state(0).faults().latency_ms == 10);
  control_call(control + "/bmcs/0/faults", "PUT", {{"latency_ms", 20}});
  CHECK_FALSE(fleet.state(0).faults().invalid_json);
  CHECK(control_call(control + "/bmcs/0/faults", "DELETE").status == 200);
  CHECK_FALSE(fleet.state(0).faults().any());
  CHECK(curl_fetch(fleet.endpoint(0) + "/redfish/v1/Systems").doc().contains("Members"));

  CHECK(control_call(control + "/bmcs/0/faults", "PUT", {{"explode", true}}).status == 400);
  CHECK(control_call(control + "/bmcs/0/faults", "PUT", {{"error_rate", 3}}).status == 400);
  CHECK(control_call(control + "/bmcs/2", "GET").status == 404);
  CHECK(control_call(control + "/bmcs/x/faults", "DELETE").status == 404);
  CHECK(control_call(control + "/nothing", "GET").status == 404);
  CHECK(control_call(control + "/bmcs/0/power", "GET").status == 405);
}

TEST_CASE("power and health set by control are what the Redfish client reads",
          "[sim][redfish][control]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  ironhold::sim::RedfishFleet fleet(with_control(1));
  fleet.start();
  const std::string control = fleet.control_endpoint();
  const std::string system = fleet.endpoint(0) + rackmount_system;

  CHECK(control_call(control + "/bmcs/0/power", "POST", {{"state", "Off"}}).status == 200);
  CHECK(curl_fetch(system).doc()["PowerState"] == "Off");
  CHECK(
      control_call(control + "/bmcs/0/power", "POST", {{"state", "On"}, {"system", "437XR1138R2"}})
          .status == 200);
  CHECK(curl_fetch(system).doc()["PowerState"] == "On");
  CHECK(control_call(control + "/bmcs/0/power", "POST", {{"state", "Sideways"}}).status == 400);
  CHECK(control_call(control + "/bmcs/0/power", "POST", {{"state", "Off"}, {"system", "nope"}})
            .status == 404);

  const auto health = control_call(control + "/bmcs/0/health", "POST", {{"health", "Warning"}});
  CHECK(health.status == 200);
  CHECK(health.doc()["systems"][0]["health"] == "Warning");
  const json doc = curl_fetch(system).doc();
  CHECK(doc["Status"]["Health"] == "Warning");
  CHECK(doc["Status"]["HealthRollup"] == "Warning");
  CHECK(control_call(control + "/bmcs/0/health", "POST", {{"health", "Purple"}}).status == 400);
  fleet.state(0).set_health("OK");
  CHECK(curl_fetch(system).doc()["Status"]["Health"] == "OK");
}

TEST_CASE("a SEL entry appended by control shows in the entries collection",
          "[sim][redfish][control][sel]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  ironhold::sim::RedfishFleet fleet(with_control(1));
  fleet.start();
  const std::string control = fleet.control_endpoint();
  const auto before = curl_fetch(fleet.endpoint(0) + sel_entries).doc()["Members"].size();

  const auto added = control_call(control + "/bmcs/0/sel", "POST",
                                  {{"severity", "Warning"},
                                   {"message", "GPU 3 over temperature"},
                                   {"sensor_type", "Temperature"}});
  REQUIRE(added.status == 201);
  const json entry = added.doc();
  CHECK(entry["EntryType"] == "SEL");
  CHECK(entry["Severity"] == "Warning");
  CHECK(entry["Created"].get<std::string>().size() == 20);  // 2026-11-29T21:00:00Z
  const json entries = curl_fetch(fleet.endpoint(0) + sel_entries).doc();
  REQUIRE(entries["Members"].size() == before + 1);
  CHECK(entries["Members@odata.count"] == before + 1);
  CHECK(entries["Members"].back()["@odata.id"] == entry["@odata.id"]);
  const json fetched = curl_fetch(fleet.endpoint(0) + entry["@odata.id"].get<std::string>()).doc();
  CHECK(fetched["Message"] == "GPU 3 over temperature");
  CHECK(fetched["SensorType"] == "Temperature");

  const json second = fleet.state(0).append_sel("Critical", "PSU 2 lost input");
  CHECK(second["Id"] != entry["Id"]);
  CHECK(control_call(control + "/bmcs/0/sel", "POST", {{"severity", "Warning"}}).status == 400);
  CHECK(control_call(control + "/bmcs/0/sel", "POST", {{"severity", "Bad"}, {"message", "x"}})
            .status == 400);
}

TEST_CASE("expired sessions make the client log in again, counters count",
          "[sim][redfish][control]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  ironhold::sim::RedfishFleet fleet(with_control(1));
  fleet.start();
  const std::string control = fleet.control_endpoint();
  const std::string base = fleet.endpoint(0);
  CurlCall login;
  login.method = "POST";
  login.basic.clear();
  login.body = R"({"UserName": "admin", "Password": "password"})";
  const auto created = curl_fetch(base + "/redfish/v1/SessionService/Sessions", login);
  REQUIRE(created.status == 201);
  CurlCall with_token;
  with_token.basic.clear();
  with_token.headers = {"X-Auth-Token: " + created.headers.at("x-auth-token")};
  CHECK(curl_fetch(base + "/redfish/v1/Systems", with_token).status == 200);
  const auto expired = control_call(control + "/bmcs/0/sessions/expire", "POST");
  CHECK(expired.status == 200);
  CHECK(expired.doc()["expired"] == 1);
  CHECK(curl_fetch(base + "/redfish/v1/Systems", with_token).status == 401);
  CHECK(curl_fetch(base + "/redfish/v1/SessionService/Sessions").doc()["Members"].empty());

  CurlCall reset;
  reset.method = "POST";
  reset.body = R"({"ResetType": "ForceOff"})";
  CHECK(curl_fetch(base + rackmount_system + "/Actions/ComputerSystem.Reset", reset).status == 204);
  CurlCall boot;
  boot.method = "PATCH";
  boot.body =
      R"({"Boot": {"BootSourceOverrideTarget": "Pxe", "BootSourceOverrideEnabled": "Once"}})";
  CHECK(curl_fetch(base + rackmount_system, boot).status == 200);
  CurlCall led;
  led.method = "PATCH";
  led.body = R"({"IndicatorLED": "Blinking"})";
  CHECK(curl_fetch(base + rackmount_system, led).status == 200);
  CHECK(curl_fetch(base + rackmount_system).doc()["IndicatorLED"] == "Blinking");
  CurlCall manager_reset;
  manager_reset.method = "POST";
  manager_reset.body = R"({"ResetType": "GracefulRestart"})";
  CHECK(curl_fetch(base + "/redfish/v1/Managers/BMC/Actions/Manager.Reset", manager_reset).status ==
        204);

  const auto counters = control_call(control + "/bmcs/0/counters", "GET");
  REQUIRE(counters.status == 200);
  const json c = counters.doc();
  CHECK(c["successful_logins"].get<unsigned>() >= 1);
  CHECK(c["resets"]["ForceOff"] == 1);
  CHECK(c["manager_resets"]["GracefulRestart"] == 1);
  CHECK(c["boot_overrides"] == 1);
  CHECK(c["identify_changes"] == 1);
  CHECK(c["firmware_updates"] == 0);
  CHECK(c["requests"].get<unsigned>() >= 8);
}

TEST_CASE("a certificate change gives the BMC a different leaf", "[sim][redfish][control][tls]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  ironhold::sim::RedfishFleet fleet(with_control(2));
  fleet.start();
  CurlCall call;
  call.certinfo = true;
  const auto before = curl_fetch(fleet.endpoint(0) + "/redfish/v1/", call);
  REQUIRE(!before.leaf_pem.empty());
  const std::string old_print = ironhold::sim::sha256_fingerprint(before.leaf_pem);
  CHECK(old_print == fleet.certificate_fingerprint(0));
  const std::string neighbour = fleet.certificate_fingerprint(1);

  const auto changed = control_call(fleet.control_endpoint() + "/bmcs/0/certificate", "POST");
  REQUIRE(changed.status == 200);
  const std::string new_print = changed.doc()["certificate_sha256"];
  CHECK(new_print != old_print);
  const auto after = curl_fetch(fleet.endpoint(0) + "/redfish/v1/", call);
  REQUIRE(after.ok());
  CHECK(ironhold::sim::sha256_fingerprint(after.leaf_pem) == new_print);
  CHECK(fleet.change_certificate(0) != new_print);  // in-process too
  CHECK(fleet.certificate_fingerprint(1) == neighbour);

  auto plain = ironhold::test::fleet_options(1);
  plain.tls = false;
  ironhold::sim::RedfishFleet http_fleet(plain);
  CHECK_THROWS_AS(http_fleet.change_certificate(0), ironhold::Error);
  CHECK_THROWS_AS(http_fleet.describe(5), ironhold::Error);
}

}  // namespace redfish_control_test

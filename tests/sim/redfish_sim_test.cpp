// The simulated Redfish BMCs (sim/redfish/), served in-process on loopback and spoken to over real
// HTTPS with libcurl, from the DMTF public-rackmount1 mockup.
#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "curl_client.hpp"
#include "inventory/error.hpp"
#include "sim/redfish/fleet.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace redfish_sim_test {

using nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace rf = ironhold::sim::redfish;

namespace {

const fs::path mockup_dir = fs::path(IRONHOLD_SHARED_DIR) / "redfish-mockups" / "public-rackmount1";
const std::string system_url = "/redfish/v1/Systems/437XR1138R2";

bool have_mockup() {
  if (fs::exists(mockup_dir / "index.json")) return true;
  WARN("skipped: no Redfish mockups at " << mockup_dir.string());
  return false;
}

using Reply = ironhold::test::CurlReply;

struct Call {
  std::string method = "GET";
  std::string body;
  std::vector<std::string> headers;
  std::string basic;  // "user:password"
};

// One request that must complete at the transport level (statuses are the test's business).
Reply fetch(const std::string& url, const Call& call = {}) {
  ironhold::test::CurlCall c;
  c.method = call.method;
  c.body = call.body;
  c.headers = call.headers;
  c.basic = call.basic;
  Reply reply = ironhold::test::curl_fetch(url, c);
  INFO(url << ": " << curl_easy_strerror(reply.code));
  REQUIRE(reply.ok());
  return reply;
}

Call basic(Call call = {}) {
  call.basic = "admin:password";
  return call;
}

ironhold::sim::RedfishFleetOptions options(unsigned count = 1) {
  ironhold::sim::RedfishFleetOptions o;
  o.mockup_dir = mockup_dir;
  o.count = count;
  o.listen = "127.0.0.1:0";
  o.reset_delay = 300ms;
  return o;
}

std::string power_state(const std::string& base) {
  return fetch(base + system_url, basic()).doc().value("PowerState", "");
}

}  // namespace

TEST_CASE("the mockup loads by the DMTF URL rules and a bad file is named",
          "[sim][redfish][mockup]") {
  if (!have_mockup()) return;
  const auto mockup = rf::Mockup::load(mockup_dir);
  const auto& docs = mockup.documents();
  CHECK(docs.count("/redfish/v1"));
  CHECK(docs.count(system_url));
  CHECK(docs.count("/redfish/v1/Registries/Base.1.5.0.json"));
  REQUIRE(docs.count("/redfish/v1/$metadata"));
  CHECK_FALSE(docs.at("/redfish/v1/$metadata").is_json);
  CHECK(docs.count("/redfish/v1/explorer_config.json") == 0);
  CHECK(rf::resource_path("/redfish/v1/?$expand=.") == "/redfish/v1");
  CHECK(rf::resource_path("/redfish/v1/Systems/#/x") == "/redfish/v1/Systems");
  CHECK(rf::resource_path("/redfish/v10").empty());

  const fs::path bad = fs::temp_directory_path() / ("ih-bad-mockup-" + std::to_string(::getpid()));
  fs::create_directories(bad / "Systems");
  { std::ofstream(bad / "index.json") << "{}"; }
  { std::ofstream(bad / "Systems" / "index.json") << "{\"Members\": ["; }
  try {
    (void)rf::Mockup::load(bad);
    FAIL("a bad mockup file loaded");
  } catch (const ironhold::Error& e) {
    CHECK(std::string(e.what()).find("Systems/index.json") != std::string::npos);
  }
  fs::remove_all(bad);
}

TEST_CASE("per-instance rewrites are deterministic and distinct", "[sim][redfish]") {
  CHECK(rf::unique_uuid("38947555-7742-3448-3784-823347823834", 1) ==
        rf::unique_uuid("38947555-7742-3448-3784-823347823834", 1));
  CHECK(rf::unique_uuid("38947555-7742-3448-3784-823347823834", 1) !=
        rf::unique_uuid("38947555-7742-3448-3784-823347823834", 2));
  CHECK(rf::unique_uuid("not-a-uuid", 1) == "not-a-uuid");
  const std::string mac = rf::unique_mac("12:44:6A:3B:04:11", 3);
  CHECK(mac.substr(0, 9) == "12:44:6A:");
  CHECK(mac != "12:44:6A:3B:04:11");
  CHECK(rf::unique_mac("12:44:6A:3B:04:11", 3) != rf::unique_mac("12:44:6A:3B:04:11", 4));
}

TEST_CASE("the service root is open, everything else wants Basic auth or a session",
          "[sim][redfish][auth]") {
  if (!have_mockup()) return;
  ironhold::sim::RedfishFleet fleet(options());
  fleet.start();
  const std::string base = fleet.endpoint(0);
  REQUIRE(base.rfind("https://127.0.0.1:", 0) == 0);

  auto root = fetch(base + "/redfish/v1/");
  CHECK(root.status == 200);
  CHECK(root.headers["odata-version"] == "4.0");
  CHECK(root.doc()["RedfishVersion"] == "1.15.0");
  CHECK(fetch(base + "/redfish").doc()["v1"] == "/redfish/v1/");

  auto denied = fetch(base + "/redfish/v1/Systems");
  CHECK(denied.status == 401);
  CHECK(denied.doc()["error"]["code"].get<std::string>().find("NoValidSession") !=
        std::string::npos);
  CHECK(fetch(base + "/redfish/v1/Systems", basic()).status == 200);

  Call wrong;
  wrong.basic = "admin:nope";
  CHECK(fetch(base + "/redfish/v1/Systems", wrong).status == 401);
  Call bad_login{"POST", R"({"UserName": "admin", "Password": "nope"})"};
  CHECK(fetch(base + "/redfish/v1/SessionService/Sessions", bad_login).status == 401);
  CHECK(fleet.state(0).counters().failed_logins == 2);

  Call login{"POST", R"({"UserName": "admin", "Password": "password"})"};
  auto created = fetch(base + "/redfish/v1/SessionService/Sessions", login);
  REQUIRE(created.status == 201);
  const std::string token = created.headers["x-auth-token"];
  const std::string location = created.headers["location"];
  REQUIRE(!token.empty());
  CHECK(location.rfind("/redfish/v1/SessionService/Sessions/", 0) == 0);
  Call with_token;
  with_token.headers = {"X-Auth-Token: " + token};
  CHECK(fetch(base + "/redfish/v1/Systems", with_token).status == 200);
  CHECK(fetch(base + location, with_token).doc()["UserName"] == "admin");
  with_token.method = "DELETE";
  CHECK(fetch(base + location, with_token).status == 204);
  with_token.method = "GET";
  CHECK(fetch(base + "/redfish/v1/Systems", with_token).status == 401);
  CHECK(fleet.state(0).counters().successful_logins >= 2);
  CHECK(fetch(base + "/redfish/v1/NoSuchThing", basic()).status == 404);
}

TEST_CASE("every system the collection lists is served, and two BMCs differ", "[sim][redfish]") {
  if (!have_mockup()) return;
  ironhold::sim::RedfishFleet fleet(options(2));
  fleet.start();
  REQUIRE(fleet.size() == 2);
  CHECK(fleet.endpoint(0) != fleet.endpoint(1));
  const auto collection = fetch(fleet.endpoint(0) + "/redfish/v1/Systems", basic()).doc();
  REQUIRE(collection["Members"].size() >= 1);
  for (const auto& member : collection["Members"]) {
    const std::string url = member["@odata.id"];
    INFO(url);
    CHECK(fetch(fleet.endpoint(0) + url, basic()).status == 200);
  }
  const auto a = fetch(fleet.endpoint(0) + system_url, basic()).doc();
  const auto b = fetch(fleet.endpoint(1) + system_url, basic()).doc();
  CHECK(a["SerialNumber"] != b["SerialNumber"]);
  CHECK(a["UUID"] != b["UUID"]);
  const std::string nic = "/redfish/v1/Managers/BMC/EthernetInterfaces/eth0";
  CHECK(fetch(fleet.endpoint(0) + nic, basic()).doc()["MACAddress"] !=
        fetch(fleet.endpoint(1) + nic, basic()).doc()["MACAddress"]);
}

TEST_CASE("Reset goes through PoweringOff to Off, and a disallowed type is a Redfish 400",
          "[sim][redfish][power]") {
  if (!have_mockup()) return;
  ironhold::sim::RedfishFleet fleet(options());
  fleet.start();
  const std::string base = fleet.endpoint(0);
  const std::string reset = base + system_url + "/Actions/ComputerSystem.Reset";
  REQUIRE(power_state(base) == "On");

  CHECK(fetch(reset, basic({"POST", R"({"ResetType": "ForceOff"})"})).status == 204);
  CHECK(power_state(base) == "PoweringOff");
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (power_state(base) != "Off" && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  CHECK(power_state(base) == "Off");

  auto refused =
      fetch(reset, basic({"POST", R"({"ResetType": "PowerCycle"})"}));  // not in AllowableValues
  CHECK(refused.status == 400);
  const auto error = refused.doc()["error"];
  CHECK(error["code"].get<std::string>().find("ActionParameterValueNotInList") !=
        std::string::npos);
  CHECK(error["@Message.ExtendedInfo"].size() == 1);
  CHECK(fetch(reset, basic({"POST", R"({"Reset": "On"})"})).status == 400);

  CHECK(fetch(reset, basic({"POST", R"({"ResetType": "On"})"})).status == 204);
  CHECK(power_state(base) == "PoweringOn");
  const auto counters = fleet.state(0).counters();
  CHECK(counters.resets.at("ForceOff") == 1);
  CHECK(counters.resets.at("On") == 1);
  CHECK(counters.resets.count("PowerCycle") == 0);
}

TEST_CASE("the boot override PATCH persists and honours If-Match", "[sim][redfish][boot]") {
  if (!have_mockup()) return;
  ironhold::sim::RedfishFleet fleet(options());
  fleet.start();
  const std::string url = fleet.endpoint(0) + system_url;
  const auto before = fetch(url, basic());
  const std::string etag = before.headers.at("etag");
  REQUIRE(!etag.empty());

  Call patch = basic(
      {"PATCH",
       R"({"Boot": {"BootSourceOverrideTarget": "Cd", "BootSourceOverrideEnabled": "Continuous"}})"});
  patch.headers = {"If-Match: " + etag};
  CHECK(fetch(url, patch).status == 200);
  const auto after = fetch(url, basic());
  CHECK(after.doc()["Boot"]["BootSourceOverrideTarget"] == "Cd");
  CHECK(after.doc()["Boot"]["BootSourceOverrideEnabled"] == "Continuous");
  CHECK(after.headers.at("etag") != etag);

  Call stale = basic({"PATCH", R"({"Boot": {"BootSourceOverrideTarget": "Hdd"}})"});
  stale.headers = {"If-Match: " + etag};
  CHECK(fetch(url, stale).status == 412);
  CHECK(
      fetch(url, basic({"PATCH", R"({"Boot": {"BootSourceOverrideTarget": "Floppy"}})"})).status ==
      400);
  CHECK(fetch(url, basic()).doc()["Boot"]["BootSourceOverrideTarget"] == "Cd");
}

TEST_CASE("addresses: consecutive ports, or consecutive loopback addresses", "[sim][redfish]") {
  auto ports = ironhold::sim::fleet_endpoints("127.0.0.1:20001", 3, false);
  REQUIRE(ports.size() == 3);
  CHECK(ports[2].port() == 20003);
  auto spread = ironhold::sim::fleet_endpoints("127.0.9.254:443", 3, true);
  REQUIRE(spread.size() == 3);
  CHECK(spread[1].address().to_string() == "127.0.9.255");
  CHECK(spread[2].address().to_string() == "127.0.10.0");
  CHECK(spread[2].port() == 443);
  CHECK_THROWS_AS(ironhold::sim::fleet_endpoints("10.0.0.1:443", 2, true), ironhold::Error);
  CHECK_THROWS_AS(ironhold::sim::fleet_endpoints("127.0.0.1:65535", 2, false), ironhold::Error);
  CHECK_THROWS_AS(ironhold::sim::fleet_endpoints("127.0.0.1", 1, false), ironhold::Error);
}

TEST_CASE("spread-address BMCs answer on their own loopback addresses over plain HTTP",
          "[sim][redfish]") {
  if (!have_mockup()) return;
  auto o = options(2);
  o.listen = "127.0.93.1:0";
  o.spread_addresses = true;
  o.tls = false;
  ironhold::sim::RedfishFleet fleet(o);
  fleet.start();
  CHECK(fleet.endpoint(0).rfind("http://127.0.93.1:", 0) == 0);
  CHECK(fleet.endpoint(1).rfind("http://127.0.93.2:", 0) == 0);
  CHECK(fetch(fleet.endpoint(1) + "/redfish/v1/").status == 200);
  CHECK(fetch(fleet.endpoint(1) + system_url, basic()).doc()["PowerState"] == "On");
}

}  // namespace redfish_sim_test

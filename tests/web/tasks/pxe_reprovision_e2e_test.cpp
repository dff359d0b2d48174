// Reprovisioning owned servers over PXE, end to end: the task sets a one-time PXE boot and
// restarts the simulated server; the simulator's PXE ROM fetches the iPXE script for its MAC from
// Ironhold (as the site's DHCP would point it), and its installer calls back with the script's
// one-time token. Success, the installer's failure, an installer that never calls back, a server
// whose PXE boot reaches no script, and the refusals of bad requests and stray call-backs.
#include <catch2/catch.hpp>

#include "sim/ipmi/fleet.hpp"
#include "sim/redfish/fleet.hpp"
#include "sim/redfish/installer.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/web/poller/poller_helpers.hpp"
#include "tests/web/tasks/fleet_helpers.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace pxe_reprovision_e2e_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

constexpr const char* kImage = "http://127.0.0.1:9/images/ubuntu-24.04";

// Simulated HGX servers whose PXE boots ask `server` for their script (empty: no PXE server).
sim::RedfishFleetOptions pxe_fleet(const TestServer* server, unsigned count = 1) {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  o.count = count;
  o.reset_delay = 200ms;
  if (server) o.installer.pxe_url = server->url() + "/api/v1/provisioning/ipxe?mac=${net0/mac}";
  o.installer.install_time = 500ms;
  return o;
}

std::string lifecycle_of(TestServer& server, const std::string& token, const std::string& node) {
  return http_get(server.port(), "/api/v1/nodes/" + node, token).json()["lifecycle"];
}

// The MAC addresses Ironhold inventoried for the node's NICs, in lower case (BMCs write either).
std::vector<std::string> nic_macs(TestServer& server, const std::string& token,
                                  const std::string& node) {
  std::vector<std::string> macs;
  const json components =
      http_get(server.port(), "/api/v1/nodes/" + node + "/components", token).json();
  for (const auto& c : components["items"])
    if (c["kind"] == "nic")
      for (const auto& mac : c["details"]["macs"]) {
        std::string lower = mac;
        for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        macs.push_back(lower);
      }
  return macs;
}

}  // namespace

TEST_CASE("an owned server is reprovisioned over PXE: boot override, restart, script, call-back",
          "[tasks][provisioning][e2e]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(pxe_fleet(&server));
  fleet.start();
  const auto token = server.token("operator");
  const std::string id = enroll_available(server, token, fleet, 0, "gpu-pxe-01");

  const auto res = post_action(server, token, id, "reprovision", {{"image", kImage}});
  INFO(res.body);
  REQUIRE(res.status == 202);
  CHECK(lifecycle_of(server, token, id) == "provisioning");
  const json task = wait_task_end(server, token, res.json()["id"]);
  INFO(task.dump(2));
  REQUIRE(task["state"] == "succeeded");
  for (const char* step : {"prepare", "boot", "restart", "install"})
    CHECK(step_of(task, step)["state"] == "succeeded");
  CHECK(task["result"]["image"] == kImage);
  CHECK(task["result"]["installer_message"] == "installed by the simulated installer");
  CHECK(lifecycle_of(server, token, id) == "deployed");

  // The simulator saw one PXE boot override, one restart into it, one script, one call-back;
  // the one-time override is used up.
  const json bmc = fleet.describe(0);
  INFO(bmc.dump(2));
  CHECK(bmc["counters"]["boot_overrides"] == 1);
  CHECK(bmc["counters"]["network_boots"] == 1);
  CHECK(bmc["installer"]["boots"] == 1);
  CHECK(bmc["installer"]["callbacks"] == 1);
  // The MAC the simulator booted from is one Ironhold inventoried.
  const auto macs = nic_macs(server, token, id);
  const std::string booted = bmc["installer"]["last"]["mac"];
  CHECK(std::find(macs.begin(), macs.end(), booted) != macs.end());

  // The node's history and the audit trail tell the story.
  const json events =
      http_get(server.port(), "/api/v1/nodes/" + id + "/events?kind=provisioning", token).json();
  CHECK(events["items"].size() == 2);  // script fetched, installer reported
  const auto audit =
      http_get(server.port(), "/api/v1/audit?target=" + id + "&limit=100", server.token("auditor"));
  CHECK(audit.body.find("provisioning.callback") != std::string::npos);

  // A made-up token is refused (a used one too: see the next test).
  const json made_up = {{"token", std::string(64, 'a')}, {"status", "succeeded"}};
  CHECK(http_send(server.port(), "POST", "/api/v1/provisioning/callback", made_up, std::nullopt)
            .status == 403);
  // No reprovisioning is under way now: the script is not served (the node boots its disk).
  CHECK(http_get(server.port(), "/api/v1/provisioning/ipxe?mac=" + booted, std::nullopt).status ==
        404);

  // Again, without naming the image: the one of the last reprovision.
  const std::string again = start_task(server, token, id, "reprovision", json::object());
  const json second = wait_task_end(server, token, again);
  CHECK(second["state"] == "succeeded");
  CHECK(second["parameters"]["image"] == kImage);
  CHECK(fleet.describe(0)["installer"]["callbacks"] == 2);
}

TEST_CASE("the script an installer gets carries what it needs, and only while it is awaited",
          "[tasks][provisioning][e2e]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(pxe_fleet(nullptr));  // nothing answers its PXE boots
  fleet.start();
  const auto token = server.token("operator");
  const std::string id = enroll_available(server, token, fleet, 0, "gpu-pxe-02");
  const auto macs = nic_macs(server, token, id);
  REQUIRE_FALSE(macs.empty());

  CHECK(http_get(server.port(), "/api/v1/provisioning/ipxe", std::nullopt).status == 400);
  CHECK(http_get(server.port(), "/api/v1/provisioning/ipxe?mac=not-a-mac", std::nullopt).status ==
        400);
  CHECK(http_get(server.port(), "/api/v1/provisioning/ipxe?mac=" + macs[0], std::nullopt).status ==
        404);

  const std::string task_id =
      start_task(server, token, id, "reprovision",
                 {{"image", "https://images.example/site/install.ipxe"}, {"timeout_s", 5}});
  // While the task waits, the script answers for any of the node's MACs, in iPXE's own spelling.
  std::string upper = macs.back();
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  HttpResult script;
  for (int i = 0; i < 100 && script.status != 200; ++i) {
    script = http_get(server.port(), "/api/v1/provisioning/ipxe?mac=" + upper, std::nullopt);
    if (script.status != 200) std::this_thread::sleep_for(100ms);
  }
  INFO(script.body);
  REQUIRE(script.status == 200);
  CHECK(script.body.rfind("#!ipxe\n", 0) == 0);
  CHECK(script.body.find("chain https://images.example/site/install.ipxe") != std::string::npos);
  const auto settings = sim::redfish::ipxe_settings(script.body);
  CHECK(settings.at("ironhold_callback") == server.url() + "/api/v1/provisioning/callback");
  CHECK(settings.at("ironhold_node") == "gpu-pxe-02");
  CHECK(settings.at("ironhold_token").size() == 64);

  // Nobody calls back: the task times out, says the script was fetched, and the token dies.
  const json task = wait_task_end(server, token, task_id);
  INFO(task.dump(2));
  CHECK(task["state"] == "failed");
  const std::string error = task["error"];
  CHECK(error.find("within 5 s") != std::string::npos);
  CHECK(error.find("fetched its iPXE script") != std::string::npos);
  CHECK(lifecycle_of(server, token, id) == "provision_failed");
  const json late = {{"token", settings.at("ironhold_token")}, {"status", "succeeded"}};
  CHECK(http_send(server.port(), "POST", "/api/v1/provisioning/callback", late, std::nullopt)
            .status == 403);
  CHECK(fleet.describe(0)["installer"]["last"]["outcome"].get<std::string>().find(
            "no PXE server") != std::string::npos);

  // A second try where no script is fetched at all: the error points at DHCP.
  const std::string silent =
      start_task(server, token, id, "reprovision", {{"image", kImage}, {"timeout_s", 5}});
  const json none = wait_task_end(server, token, silent);
  CHECK(none["state"] == "failed");
  CHECK(none["error"].get<std::string>().find("no iPXE script was fetched") != std::string::npos);
  // provide brings a failed node back to available.
  CHECK(http_send(server.port(), "POST", "/api/v1/nodes/" + id + "/lifecycle",
                  {{"action", "provide"}}, token)
            .status == 200);
  CHECK(lifecycle_of(server, token, id) == "available");
}

TEST_CASE("an installer that fails or hangs leaves the node provision_failed with the reason",
          "[tasks][provisioning][e2e]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(pxe_fleet(&server, 2));
  fleet.start();
  const auto token = server.token("operator");
  const std::string failing = enroll_available(server, token, fleet, 0, "gpu-pxe-03");
  const std::string hanging = enroll_available(server, token, fleet, 1, "gpu-pxe-04");
  sim::redfish::Faults fails;
  fails.install_fails = true;
  fleet.set_faults(0, fails);
  sim::redfish::Faults hangs;
  hangs.install_hangs = true;
  fleet.set_faults(1, hangs);

  const std::string a =
      start_task(server, token, failing, "reprovision", {{"image", kImage}, {"timeout_s", 30}});
  const std::string b =
      start_task(server, token, hanging, "reprovision", {{"image", kImage}, {"timeout_s", 8}});
  const json failed_task = wait_task_end(server, token, a);
  INFO(failed_task.dump(2));
  CHECK(failed_task["state"] == "failed");
  CHECK(failed_task["error"].get<std::string>().find("the installer reported failure: ") == 0);
  CHECK(failed_task["error"].get<std::string>().find("no disk found") != std::string::npos);
  const json hung_task = wait_task_end(server, token, b);
  INFO(hung_task.dump(2));
  CHECK(hung_task["state"] == "failed");
  CHECK(hung_task["error"].get<std::string>().find("never called back") != std::string::npos);
  CHECK(lifecycle_of(server, token, failing) == "provision_failed");
  CHECK(lifecycle_of(server, token, hanging) == "provision_failed");
}

TEST_CASE("an owned server's reprovision request is checked before anything is sent",
          "[tasks][provisioning][e2e]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(pxe_fleet(&server));
  fleet.start();
  const auto token = server.token("operator");
  const std::string id = enroll_available(server, token, fleet, 0, "gpu-pxe-05");

  const auto refused = [&](const json& body) {
    const auto res = post_action(server, token, id, "reprovision", body);
    INFO(res.body);
    CHECK(res.status == 422);
    return res.json().value("detail", std::string());
  };
  CHECK(refused(json::object()).find("never been reprovisioned") != std::string::npos);
  CHECK(refused({{"image", "ubuntu-24.04"}}).find("http://") != std::string::npos);
  CHECK(refused({{"image", "http://x/${evil}"}}).find("'$'") != std::string::npos);
  CHECK(refused({{"image", kImage}, {"admin_password", "S3cret!"}}).find("installer") !=
        std::string::npos);
  CHECK(refused({{"image", kImage}, {"mac", "zz:zz"}}).find("MAC address") != std::string::npos);
  CHECK(lifecycle_of(server, token, id) == "available");
  CHECK(fleet.describe(0)["counters"]["boot_overrides"] == 0);
}

TEST_CASE("an IPMI server is reprovisioned over PXE with the MAC the request names",
          "[tasks][provisioning][e2e][ipmi]") {
  TestServer server({}, {}, fast_poller());
  sim::IpmiFleetOptions o;
  o.listen = "127.0.87.9:0";
  o.cycle_delay = 200ms;
  o.installer.pxe_url = server.url() + "/api/v1/provisioning/ipxe?mac=${net0/mac}";
  o.installer.install_time = 300ms;
  sim::IpmiFleet fleet(o);
  fleet.start();
  const auto token = server.token("operator");
  const auto enrolled =
      http_send(server.port(), "POST", "/api/v1/nodes",
                {{"name", "old-pxe-01"},
                 {"driver", "ipmi"},
                 {"endpoint", fleet.endpoint(0)},
                 {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                token);
  REQUIRE(enrolled.status == 201);
  const std::string id = enrolled.json()["id"];
  REQUIRE(wait_for_node(server, token, id, [](const json& n) {
            return n["lifecycle"] == "available";
          })["lifecycle"] == "available");

  // IPMI inventories no NIC addresses: the request names the PXE NIC's.
  const auto without_mac = post_action(server, token, id, "reprovision", {{"image", kImage}});
  REQUIRE(without_mac.status == 202);
  const json refused = wait_task_end(server, token, without_mac.json()["id"]);
  CHECK(refused["state"] == "failed");
  CHECK(http_send(server.port(), "POST", "/api/v1/nodes/" + id + "/lifecycle",
                  {{"action", "provide"}}, token)
            .status == 200);

  const std::string mac = fleet.describe(0)["mac"];
  const std::string task_id =
      start_task(server, token, id, "reprovision", {{"image", kImage}, {"mac", mac}});
  const json task = wait_task_end(server, token, task_id);
  INFO(task.dump(2));
  REQUIRE(task["state"] == "succeeded");
  CHECK(lifecycle_of(server, token, id) == "deployed");
  const json bmc = fleet.describe(0);
  INFO(bmc.dump(2));
  CHECK(bmc["installer"]["boots"] == 1);
  CHECK(bmc["installer"]["callbacks"] == 1);
  CHECK(bmc["installer"]["last"]["mac"] == mac);
  CHECK(bmc["counters"]["power_cycle"].get<int>() + bmc["counters"]["power_on"].get<int>() >= 1);
  CHECK(bmc["boot"]["valid"] == false);  // the one-time PXE boot was used up
}

}  // namespace pxe_reprovision_e2e_test

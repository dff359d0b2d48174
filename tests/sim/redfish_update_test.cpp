// The simulated BMC's UpdateService.SimpleUpdate: it answers with a Task, really downloads the
// image (here from a real Ironhold, through a signed URL), and runs the Task to Completed — the
// new version in the firmware inventory at once, or after the next reset for an image that says
// so — or to Exception for a download that fails, an image it does not accept, or a fault.
#include <catch2/catch.hpp>
#include <thread>

#include "curl_client.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace redfish_update_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const std::string kUpdate = "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate";
const std::string kBmcEntry = "/redfish/v1/UpdateService/FirmwareInventory/BMC";
const std::string kBiosEntry = "/redfish/v1/UpdateService/FirmwareInventory/BIOS";

// An image on a real Ironhold, and the signed URL a BMC downloads it from.
std::string host_image(TestServer& server, const std::string& header, std::size_t size) {
  std::string image = header + "\n";
  image.resize(size, 'x');
  HttpRequest r;
  r.method = "POST";
  r.target = "/api/v1/firmware/images?name=fw.bin&version=1&component=BMC";
  r.body = image;
  r.token = server.token("admin");
  r.content_type = "application/octet-stream";
  const auto created = http_request(server.port(), r);
  REQUIRE(created.status == 201);
  const std::string id = created.json()["id"];
  const auto url = http_send(server.port(), "POST", "/api/v1/firmware/images/" + id + "/url",
                             json::object(), server.token("operator"));
  REQUIRE(url.status == 200);
  return url.json()["url"];
}

CurlCall post(const json& body) {
  CurlCall call;
  call.method = "POST";
  call.body = body.dump();
  call.headers = {"Content-Type: application/json"};
  return call;
}

// Starts an update and follows its task monitor until the Task ends (or 30 s pass).
json run_update(sim::RedfishFleet& fleet, const json& body) {
  const CurlReply accepted = curl_fetch(fleet.endpoint(0) + kUpdate, post(body));
  INFO(accepted.body);
  REQUIRE(accepted.status == 202);
  const std::string monitor = accepted.headers.at("location");
  CHECK(accepted.doc()["TaskState"] == "New");
  json task;
  for (int i = 0; i < 300; ++i) {
    task = curl_fetch(fleet.endpoint(0) + monitor).doc();
    if (task["TaskState"] == "Completed" || task["TaskState"] == "Exception") break;
    std::this_thread::sleep_for(100ms);
  }
  return task;
}

std::string version_of(sim::RedfishFleet& fleet, const std::string& entry) {
  return curl_fetch(fleet.endpoint(0) + entry).doc()["Version"];
}

sim::RedfishFleetOptions update_fleet() {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  o.reset_delay = 100ms;
  o.updater.update_time = 400ms;
  return o;
}

}  // namespace

TEST_CASE("SimpleUpdate downloads the image and its task installs the version it carries",
          "[sim][redfish][update]") {
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  sim::RedfishFleet fleet(update_fleet());
  fleet.start();
  const std::string before = version_of(fleet, kBmcEntry);
  const std::string url =
      host_image(server, "IRONHOLD-FIRMWARE component=BMC version=9.8.7", 3 << 20);
  const json task = run_update(fleet, {{"ImageURI", url}, {"Targets", {kBmcEntry}}});
  INFO(task.dump(2));
  CHECK(task["TaskState"] == "Completed");
  CHECK(task["PercentComplete"] == 100);
  CHECK(task["Messages"][0]["MessageId"] == "Update.1.0.UpdateSuccessful");
  CHECK(version_of(fleet, kBmcEntry) == "9.8.7");
  CHECK(before != "9.8.7");
  // The task service lists it.
  const json tasks = curl_fetch(fleet.endpoint(0) + "/redfish/v1/TaskService/Tasks").doc();
  CHECK(tasks["Members@odata.count"] == 1);
  CHECK(fleet.describe(0)["counters"]["updates_completed"] == 1);
}

TEST_CASE("an image that activates at reset shows its version only after the system resets",
          "[sim][redfish][update]") {
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  sim::RedfishFleet fleet(update_fleet());
  fleet.start();
  const std::string url =
      host_image(server, "IRONHOLD-FIRMWARE component=BIOS version=3.2.1 activate=reset", 100'000);
  const std::string before = version_of(fleet, kBiosEntry);
  const json task = run_update(fleet, {{"ImageURI", url}});  // no Targets: the image says BIOS
  INFO(task.dump(2));
  CHECK(task["TaskState"] == "Completed");
  CHECK(task["Messages"][0]["MessageId"] == "Update.1.0.AwaitToActivate");
  CHECK(version_of(fleet, kBiosEntry) == before);
  CHECK(curl_fetch(fleet.endpoint(0) + "/redfish/v1/Systems/HGX_0/Actions/ComputerSystem.Reset",
                   post({{"ResetType", "PowerCycle"}}))
            .status == 204);
  CHECK(version_of(fleet, kBiosEntry) == "3.2.1");
}

TEST_CASE("updates end in Exception for a failed download, a foreign image and the faults",
          "[sim][redfish][update]") {
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  sim::RedfishFleet fleet(update_fleet());
  fleet.start();
  const std::string before = version_of(fleet, kBmcEntry);

  // A URL whose signature is wrong: Ironhold refuses it, and the task says so.
  const std::string good = host_image(server, "IRONHOLD-FIRMWARE component=BMC version=5", 5000);
  std::string altered = good;
  altered.back() = altered.back() == '0' ? '1' : '0';
  const json refused = run_update(fleet, {{"ImageURI", altered}});
  CHECK(refused["TaskState"] == "Exception");
  CHECK(refused["Messages"][0]["Message"].get<std::string>().find("HTTP 403") != std::string::npos);
  // An image without the header the simulated firmware reads.
  const std::string foreign = host_image(server, "MZ this is not firmware", 5000);
  CHECK(run_update(fleet, {{"ImageURI", foreign}})["TaskState"] == "Exception");

  sim::redfish::Faults fails;
  fails.update_fails = true;
  fleet.set_faults(0, fails);
  const json rejected = run_update(fleet, {{"ImageURI", good}});
  CHECK(rejected["TaskState"] == "Exception");
  CHECK(rejected["Messages"][0]["Message"].get<std::string>().find("update_fails") !=
        std::string::npos);
  CHECK(version_of(fleet, kBmcEntry) == before);

  // A hung update stays Running.
  sim::redfish::Faults hangs;
  hangs.update_hangs = true;
  fleet.set_faults(0, hangs);
  const CurlReply accepted = curl_fetch(fleet.endpoint(0) + kUpdate, post({{"ImageURI", good}}));
  REQUIRE(accepted.status == 202);
  std::this_thread::sleep_for(1500ms);
  const json hung = curl_fetch(fleet.endpoint(0) + accepted.headers.at("location")).doc();
  CHECK(hung["TaskState"] == "Running");
  CHECK(hung["PercentComplete"] == 50);

  // Bad requests are refused at once.
  CHECK(curl_fetch(fleet.endpoint(0) + kUpdate, post(json::object())).status == 400);
  CHECK(curl_fetch(fleet.endpoint(0) + kUpdate,
                   post({{"ImageURI", good}, {"Targets", {"/redfish/v1/Systems/HGX_0"}}}))
            .status == 400);
}

}  // namespace redfish_update_test

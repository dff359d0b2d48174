// Firmware updates of owned servers, end to end: an image uploaded to a real Ironhold, a task that
// hands the simulated BMC a signed URL (Redfish SimpleUpdate), the BMC downloading it and running
// its Task, and the task following it, resetting the System for firmware that waits for a reset,
// and confirming the new version in the recorded firmware inventory (whose history keeps the old
// one). Then the failures: a BMC that rejects the image, one whose update never finishes, an image
// for a component the node lacks, requests refused before anything is sent, and a task resumed
// after its worker died while the update was being sent.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <filesystem>

#include "inventory/tasks/task_engine.hpp"
#include "sim/redfish/faults.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/web/poller/poller_helpers.hpp"
#include "tests/web/tasks/fleet_helpers.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace firmware_task_e2e_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

sim::RedfishFleetOptions update_fleet() {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  o.reset_delay = 100ms;
  o.updater.update_time = 400ms;
  return o;
}

// Uploads an image of the simulated firmware's format; returns its id.
std::string upload_image(TestServer& server, const std::string& component,
                         const std::string& version, const std::string& extra = "",
                         const std::string& model = "") {
  std::string image = "IRONHOLD-FIRMWARE component=" + component + " version=" + version +
                      (extra.empty() ? "" : " " + extra) + "\n";
  image.resize(200'000, 'x');
  HttpRequest r;
  r.method = "POST";
  r.target = "/api/v1/firmware/images?name=" + component + "-" + version +
             ".bin&version=" + version + "&component=" + component +
             (model.empty() ? "" : "&model=" + model);
  r.body = image;
  r.token = server.token("admin");
  r.content_type = "application/octet-stream";
  const auto created = http_request(server.port(), r);
  INFO(created.body);
  REQUIRE(created.status == 201);
  return created.json()["id"];
}

// The component's current version as Ironhold recorded it, and its history (newest first).
json firmware_records(TestServer& server, const std::string& token, const std::string& node,
                      const std::string& component) {
  const json all =
      http_get(server.port(), "/api/v1/nodes/" + node + "/firmware?history=true", token).json();
  json out = json::array();
  for (const auto& item : all["items"])
    if (item["component"] == component) out.push_back(item);
  return out;
}
std::string current_version(TestServer& server, const std::string& token, const std::string& node,
                            const std::string& component) {
  for (const auto& item : firmware_records(server, token, node, component))
    if (item["until"].is_null()) return item["version"];
  return "";
}

unsigned counter(sim::RedfishFleet& fleet, const char* name) {
  return fleet.describe(0)["counters"][name].get<unsigned>();
}

}  // namespace

TEST_CASE("a firmware update is downloaded by the BMC, followed, and confirmed in the inventory",
          "[tasks][firmware][e2e]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(update_fleet());
  fleet.start();
  const auto token = server.token("operator");
  const std::string node = enroll_available(server, token, fleet, 0, "gpu-fw-01");
  const std::string before = current_version(server, token, node, "BMC");
  REQUIRE_FALSE(before.empty());
  const std::string version = before + "-next";
  const std::string image = upload_image(server, "BMC", version);

  const std::string id = start_task(server, token, node, "firmware", {{"image", image}});
  const json task = wait_task_end(server, token, id);
  INFO(task.dump(2));
  REQUIRE(task["state"] == "succeeded");
  CHECK(task["kind"] == "firmware");
  CHECK(task["parameters"]["component"] == "BMC");
  CHECK(task["parameters"]["version"] == version);
  for (const char* step : {"prepare", "transfer", "update", "verify"})
    CHECK(step_of(task, step)["state"] == "succeeded");
  CHECK(step_of(task, "activate")["state"] == "skipped");
  CHECK(task["result"]["from"] == before);
  CHECK(task["result"]["to"] == version);
  CHECK(task["result"]["confirmed"] == true);
  // No step shows the URL's signature: the URL is a download capability.
  CHECK(task.dump().find("signature=") == std::string::npos);

  // The inventory has the new version, and its history the old one up to the change.
  CHECK(current_version(server, token, node, "BMC") == version);
  const json history = firmware_records(server, token, node, "BMC");
  bool old_closed = false;
  for (const auto& item : history)
    if (item["version"] == before && !item["until"].is_null()) old_closed = true;
  CHECK(old_closed);
  CHECK(counter(fleet, "firmware_updates") == 1);
  CHECK(counter(fleet, "updates_completed") == 1);
  CHECK(all_resets(fleet) == 0);

  // Again: the component is already at that version, so nothing is sent.
  const json again =
      wait_task_end(server, token, start_task(server, token, node, "firmware", {{"image", image}}));
  INFO(again.dump(2));
  CHECK(again["state"] == "succeeded");
  CHECK(again["result"]["already"] == true);
  CHECK(step_of(again, "transfer").is_null());
  CHECK(counter(fleet, "firmware_updates") == 1);

  // The audit trail names the task and its outcome.
  const auto audit = http_get(server.port(), "/api/v1/audit?target=" + node + "&limit=100",
                              server.token("auditor"));
  CHECK(audit.body.find(id) != std::string::npos);
}

TEST_CASE("firmware that waits for a reset is activated by one, or left staged when asked",
          "[tasks][firmware][e2e]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(update_fleet());
  fleet.start();
  const auto token = server.token("operator");
  const std::string node = enroll_available(server, token, fleet, 0, "gpu-fw-02");
  const std::string before = current_version(server, token, node, "BIOS");
  REQUIRE_FALSE(before.empty());

  // Left staged: the task ends without a reset and says the version is not confirmed.
  const std::string staged_image = upload_image(server, "BIOS", before + "-a", "activate=reset");
  const json staged = wait_task_end(
      server, token,
      start_task(server, token, node, "firmware", {{"image", staged_image}, {"reset", false}}));
  INFO(staged.dump(2));
  CHECK(staged["state"] == "succeeded");
  CHECK(staged["result"]["staged"] == true);
  CHECK(staged["result"]["confirmed"] == false);
  CHECK(step_of(staged, "activate")["state"] == "skipped");
  CHECK(step_of(staged, "verify").is_null());
  CHECK(all_resets(fleet) == 0);

  // Activated: one reset, then the new version shows.
  const std::string image = upload_image(server, "BIOS", before + "-b", "activate=reset");
  const json task =
      wait_task_end(server, token, start_task(server, token, node, "firmware", {{"image", image}}));
  INFO(task.dump(2));
  REQUIRE(task["state"] == "succeeded");
  CHECK(step_of(task, "activate")["state"] == "succeeded");
  CHECK(task["result"]["reset"] == true);
  CHECK(task["result"]["to"] == before + "-b");
  CHECK(all_resets(fleet) == 1);
  CHECK(current_version(server, token, node, "BIOS") == before + "-b");
}

TEST_CASE("a BMC that rejects the image or never finishes fails the task, naming what it saw",
          "[tasks][firmware][e2e]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(update_fleet());
  fleet.start();
  const auto token = server.token("operator");
  const std::string node = enroll_available(server, token, fleet, 0, "gpu-fw-03");
  const std::string before = current_version(server, token, node, "BMC");
  const std::string image = upload_image(server, "BMC", before + "-bad");

  sim::redfish::Faults fails;
  fails.update_fails = true;
  fleet.set_faults(0, fails);
  const json rejected =
      wait_task_end(server, token, start_task(server, token, node, "firmware", {{"image", image}}));
  INFO(rejected.dump(2));
  CHECK(rejected["state"] == "failed");
  CHECK(rejected["error"].get<std::string>().find("the BMC reports the update failed") !=
        std::string::npos);
  CHECK(rejected["error"].get<std::string>().find("update_fails") != std::string::npos);
  CHECK(step_of(rejected, "update")["state"] == "failed");
  CHECK(current_version(server, token, node, "BMC") == before);

  sim::redfish::Faults hangs;
  hangs.update_hangs = true;
  fleet.set_faults(0, hangs);
  const json hung = wait_task_end(
      server, token,
      start_task(server, token, node, "firmware", {{"image", image}, {"timeout_s", 10}}));
  INFO(hung.dump(2));
  CHECK(hung["state"] == "failed");
  const std::string error = hung["error"];
  CHECK(error.find("did not finish within 10 s") != std::string::npos);
  CHECK(error.find("50 %") != std::string::npos);  // the last progress the BMC reported
  CHECK(current_version(server, token, node, "BMC") == before);

  // An image for a component the node does not have: nothing is sent.
  fleet.clear_faults(0);
  const unsigned sent = counter(fleet, "firmware_updates");
  const json missing =
      wait_task_end(server, token,
                    start_task(server, token, node, "firmware",
                               {{"image", upload_image(server, "NoSuchController", "1.0")}}));
  CHECK(missing["state"] == "failed");
  CHECK(missing["error"].get<std::string>().find("no firmware component \"NoSuchController\"") !=
        std::string::npos);
  CHECK(counter(fleet, "firmware_updates") == sent);
}

TEST_CASE("firmware update requests that cannot work are refused before anything is sent",
          "[tasks][firmware][e2e]") {
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  const auto token = server.token("operator");
  const std::string redfish = enroll_redfish(server, token, "gpu-fw-04", "https://127.0.0.1:9");
  const auto ipmi = http_send(server.port(), "POST", "/api/v1/nodes",
                              {{"name", "old-ipmi"},
                               {"driver", "ipmi"},
                               {"endpoint", "ipmi://127.0.0.1:9"},
                               {"credentials", {{"username", "admin"}, {"password", "pw"}}}},
                              token);
  REQUIRE(ipmi.status == 201);
  const std::string image = upload_image(server, "BMC", "2.0");

  const auto over_ipmi =
      post_action(server, token, ipmi.json()["id"], "firmware", {{"image", image}});
  CHECK(over_ipmi.status == 422);
  CHECK(over_ipmi.body.find("Redfish UpdateService only") != std::string::npos);
  const auto unknown = post_action(server, token, redfish, "firmware",
                                   {{"image", "00000000-0000-0000-0000-000000000000"}});
  CHECK(unknown.status == 422);
  CHECK(post_action(server, token, redfish, "firmware", {{"image", "bmc.bin"}}).status == 422);
  CHECK(post_action(server, token, redfish, "firmware", json::object()).status == 400);
  CHECK(
      post_action(server, token, redfish, "firmware", {{"image", image}, {"force", true}}).status ==
      400);
  CHECK(post_action(server, token, redfish, "firmware", {{"image", image}, {"timeout_s", 1}})
            .status == 422);
  // Viewers may not; bulk actions do not take firmware (rollouts do).
  CHECK(
      post_action(server, server.token("viewer"), redfish, "firmware", {{"image", image}}).status ==
      403);
  const auto bulk = http_send(server.port(), "POST", "/api/v1/actions",
                              {{"selector", {{"names", "gpu-fw-04"}}},
                               {"action", "firmware"},
                               {"parameters", {{"image", image}}}},
                              token);
  CHECK(bulk.status == 422);
  const json tasks = http_get(server.port(), "/api/v1/tasks?kind=firmware", token).json();
  CHECK(tasks["items"].empty());
}

TEST_CASE("an update whose sending was cut short is followed, not flashed twice",
          "[tasks][firmware][e2e][resume]") {
  sim::RedfishFleet fleet(update_fleet());
  fleet.start();
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);  // no engine of its own
  const auto token = server.token("operator");
  const std::string node = enroll_redfish(server, token, "gpu-fw-05", fleet.endpoint(0));
  const std::string image = upload_image(server, "BMC", "7.7.7-resumed");
  const std::string id = start_task(server, token, node, "firmware", {{"image", image}});
  const tasks::FirmwareDownloads downloads{&server.host().url_signer(), server.url()};

  // A dead instance: it read the version, chose the URL's expiry, recorded the send as under way
  // and sent it; then it died.
  auto claimed = server.host().tasks().claim("dead-instance", 10, std::chrono::seconds(1));
  REQUIRE(claimed.size() == 1);
  REQUIRE(claimed[0].task.id == id);
  const auto expires = std::chrono::system_clock::now() + std::chrono::hours(2);
  const long long expires_s =
      std::chrono::duration_cast<std::chrono::seconds>(expires.time_since_epoch()).count();
  TaskStep prepare;
  prepare.name = "prepare";
  prepare.state = StepState::succeeded;
  prepare.data = {{"from", "0.0-before"}};
  TaskStep transfer;
  transfer.name = "transfer";
  transfer.state = StepState::sending;
  transfer.data = {{"expires", expires_s}};
  REQUIRE(server.host().tasks().save_steps(id, "dead-instance",
                                           std::vector<TaskStep>{prepare, transfer}));
  DriverTarget target = claimed[0].target;
  FirmwareUpdateRequest request;
  request.image_url =
      downloads.url(image, std::chrono::system_clock::time_point(std::chrono::seconds(expires_s)));
  const auto sent =
      boost::asio::co_spawn(server.host().io_executor(),
                            server.host().redfish().start_firmware_update(target, request),
                            boost::asio::use_future)
          .get();
  REQUIRE_FALSE(sent.error);
  REQUIRE(counter(fleet, "firmware_updates") == 1);
  std::this_thread::sleep_for(1500ms);  // the dead instance's lease runs out

  // The restarted service finds the BMC's task for that URL and follows it.
  boost::asio::thread_pool pool(2);
  TaskEngineOptions options = TestServer::fast_tasks();
  options.owner = "restarted-instance";
  TaskEngine engine(server.host().io_executor(), pool, server.host().tasks(),
                    {{"redfish", &server.host().redfish()}}, nullptr, &server.host().polls(),
                    nullptr, options);
  engine.serve_firmware(downloads, nullptr);
  engine.start();
  const json task = wait_task_end(server, token, id);
  engine.stop();
  pool.join();
  INFO(task.dump(2));
  CHECK(task["state"] == "succeeded");
  CHECK(task["attempts"] == 2);
  const json step = step_of(task, "transfer");
  REQUIRE(step.contains("in_doubt"));
  CHECK(step["in_doubt"].get<std::string>().find("followed, not sent again") != std::string::npos);
  CHECK(counter(fleet, "firmware_updates") == 1);
  CHECK(current_version(server, token, node, "BMC") == "7.7.7-resumed");
}

namespace {

// BMCs that take firmware only pushed to their MultipartHttpPushUri (OpenBMC's bmcweb without a
// download protocol), with the same simulated firmware.
sim::RedfishFleetOptions push_only_fleet(unsigned count = 1) {
  sim::RedfishFleetOptions o = update_fleet();
  o.count = count;
  o.update_methods = sim::redfish::UpdateMethods{.simple = false, .multipart = true};
  return o;
}

// Spool files left behind for `image` (their names start with its id).
int spooled_copies(const std::string& image) {
  int n = 0;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(tasks::FirmwareSpool::default_dir(), ec))
    if (entry.path().filename().string().rfind(image, 0) == 0) ++n;
  return n;
}

}  // namespace

TEST_CASE("a BMC that takes no URL is sent the image, and a pull is refused naming why",
          "[tasks][firmware][e2e][push]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(push_only_fleet());
  fleet.start();
  const auto token = server.token("operator");
  const std::string node = enroll_available(server, token, fleet, 0, "gpu-push-01");
  const std::string before = current_version(server, token, node, "BMC");
  REQUIRE_FALSE(before.empty());
  const std::string version = before + "-pushed";
  const std::string image = upload_image(server, "BMC", version);

  const std::string id = start_task(server, token, node, "firmware", {{"image", image}});
  const json task = wait_task_end(server, token, id);
  INFO(task.dump(2));
  REQUIRE(task["state"] == "succeeded");
  CHECK(task["parameters"]["transfer"] == "auto");
  const json transfer = step_of(task, "transfer");
  CHECK(transfer["data"]["sent"]["transfer"] == "push");
  CHECK(transfer["data"]["sent"]["target"] == sim::redfish::default_push_uri);
  CHECK(transfer["data"]["sent"]["tasks_before"].is_array());
  CHECK(task["result"]["confirmed"] == true);
  CHECK(current_version(server, token, node, "BMC") == version);
  CHECK(counter(fleet, "firmware_pushes") == 1);
  CHECK(counter(fleet, "updates_completed") == 1);
  // The copy made for the push is gone once it was sent.
  CHECK(spooled_copies(image) == 0);

  // Asked to download, this BMC cannot: the task fails before sending anything, and says why.
  const std::string next = upload_image(server, "BMC", version + "2");
  const json pull = wait_task_end(
      server, token,
      start_task(server, token, node, "firmware", {{"image", next}, {"transfer", "pull"}}));
  INFO(pull.dump(2));
  CHECK(pull["state"] == "failed");
  CHECK(pull["error"].get<std::string>().find("no SimpleUpdate") != std::string::npos);
  CHECK(counter(fleet, "firmware_updates") == 1);
  CHECK(
      post_action(server, token, node, "firmware", {{"image", next}, {"transfer", "ftp"}}).status ==
      422);
}

TEST_CASE("a push whose sending was cut short is followed, or sent again when it never left",
          "[tasks][firmware][e2e][push][resume]") {
  sim::RedfishFleet fleet(push_only_fleet(2));
  fleet.start();
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);  // no engine of its own
  const auto token = server.token("operator");
  const std::string image = upload_image(server, "BMC", "8.8.8-pushed");
  const std::string sent_node = enroll_redfish(server, token, "gpu-push-02", fleet.endpoint(0));
  const std::string lost_node = enroll_redfish(server, token, "gpu-push-03", fleet.endpoint(1));
  const std::string sent_id = start_task(server, token, sent_node, "firmware", {{"image", image}});
  const std::string lost_id = start_task(server, token, lost_node, "firmware", {{"image", image}});
  boost::asio::thread_pool pool(2);
  const tasks::FirmwareDownloads downloads{&server.host().url_signer(), server.url()};
  const auto spool = std::make_shared<tasks::FirmwareSpool>(server.host().firmware_images(), pool,
                                                            tasks::FirmwareSpool::default_dir());

  // A dead instance claimed both tasks, read the versions, and recorded each push as being sent
  // with what the driver said identifies it. The first push went out; the second never did.
  auto claimed = server.host().tasks().claim("dead-instance", 10, std::chrono::seconds(1));
  REQUIRE(claimed.size() == 2);
  for (const auto& job : claimed) {
    const bool send = job.task.id == sent_id;
    auto recorded = std::make_shared<json>();
    FirmwareUpdateRequest request;
    request.image_name = "bmc.bin";
    request.spool = [spool, image]() -> boost::asio::awaitable<SpoolResult> {
      tasks::SpoolCopy copy = co_await spool->copy(image);  // an I/O thread: no REQUIRE here
      if (auto* why = std::get_if<std::string>(&copy))
        co_return DriverError{DriverErrorCode::rejected, *why};
      co_return std::get<std::shared_ptr<const SpooledImage>>(std::move(copy));
    };
    request.before_send = [recorded, send](json sent) -> boost::asio::awaitable<bool> {
      *recorded = std::move(sent);
      co_return send;
    };
    const auto started =
        boost::asio::co_spawn(server.host().io_executor(),
                              server.host().redfish().start_firmware_update(job.target, request),
                              boost::asio::use_future)
            .get();
    REQUIRE_FALSE(started.error);
    REQUIRE((*recorded)["transfer"] == "push");
    TaskStep prepare;
    prepare.name = "prepare";
    prepare.state = StepState::succeeded;
    prepare.data = {{"from", "0.0-before"}};
    TaskStep transfer;
    transfer.name = "transfer";
    transfer.state = StepState::sending;
    transfer.data = {{"expires", 4102444800LL}, {"sent", *recorded}};
    REQUIRE(server.host().tasks().save_steps(job.task.id, "dead-instance",
                                             std::vector<TaskStep>{prepare, transfer}));
  }
  REQUIRE(fleet.describe(0)["counters"]["firmware_pushes"] == 1);
  REQUIRE(fleet.describe(1)["counters"]["firmware_pushes"] == 0);
  std::this_thread::sleep_for(1500ms);  // the dead instance's leases run out

  TaskEngineOptions options = TestServer::fast_tasks();
  options.owner = "restarted-instance";
  TaskEngine engine(server.host().io_executor(), pool, server.host().tasks(),
                    {{"redfish", &server.host().redfish()}}, nullptr, &server.host().polls(),
                    nullptr, options);
  engine.serve_firmware(tasks::FirmwareDownloads{}, spool);  // no URL: pushes only
  engine.start();
  const json sent_task = wait_task_end(server, token, sent_id);
  const json lost_task = wait_task_end(server, token, lost_id);
  engine.stop();
  pool.join();
  INFO(sent_task.dump(2));
  INFO(lost_task.dump(2));
  CHECK(sent_task["state"] == "succeeded");
  CHECK(step_of(sent_task, "transfer")["in_doubt"].get<std::string>().find(
            "followed, not sent again") != std::string::npos);
  CHECK(lost_task["state"] == "succeeded");
  CHECK(step_of(lost_task, "transfer")["in_doubt"].get<std::string>().find("sent again") !=
        std::string::npos);
  // Each BMC got the image exactly once.
  CHECK(fleet.describe(0)["counters"]["firmware_pushes"] == 1);
  CHECK(fleet.describe(1)["counters"]["firmware_pushes"] == 1);
  CHECK(current_version(server, token, sent_node, "BMC") == "8.8.8-pushed");
  CHECK(current_version(server, token, lost_node, "BMC") == "8.8.8-pushed");
}

}  // namespace firmware_task_e2e_test

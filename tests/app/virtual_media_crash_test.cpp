// kill -9 of `ironhold serve` while a server it reprovisions from virtual media is installing,
// then a restart on the same data directory and address: the resumed task waits for the
// installer, which calls back to the new instance with the token the dead one gave it, and ends
// with the node deployed and the image ejected. From the simulated BMC's own counters: one
// mount, one boot from the CD, one restart, one eject; nothing was sent twice.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>

#include "sim/redfish/fleet.hpp"
#include "tests/app/ironhold_process.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/test_cluster.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace virtual_media_crash_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The tests' HTTP client speaks to 127.0.0.1.
constexpr const char* kAddress = "127.0.0.1";

// A port free on kAddress now: both instances listen there, since the BMC mounted the image from
// the first one's URL and its installer calls back to the same place.
unsigned short free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  ::inet_pton(AF_INET, kAddress, &address.sin_addr);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

IronholdProcess start_serve(const fs::path& data, unsigned short port, const fs::path& log) {
  return start_ironhold({"serve", "--data-dir", data.string(), "--listen",
                         std::string(kAddress) + ":" + std::to_string(port), "--task-lease", "5",
                         "--shutdown-grace", "1000", "--poll-status-interval", "2"},
                        log);
}

json get_json(unsigned short port, const std::string& target, const std::string& token) {
  const auto res = http_get(port, target, token);
  INFO(target << ": " << res.body);
  REQUIRE(res.status == 200);
  return res.json();
}

}  // namespace

TEST_CASE(
    "a kill -9 while a server installs from virtual media: the restarted instance ends it "
    "deployed",
    "[app][tasks][crash][virtual-media]") {
  const ironhold::test::TempDir scratch("ih-vm-crash");
  const fs::path data = scratch.path() / "data";

  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  o.listen = "127.0.89.51:0";
  o.reset_delay = 300ms;
  o.installer.install_time = 8s;  // long enough for the kill and the restart to land in it
  sim::RedfishFleet fleet(o);
  fleet.start();

  const unsigned short port = free_port();
  auto serve = start_serve(data, port, scratch.path() / "serve1.log");
  const std::string token = admin_token(data, "vm-crash-test");
  const auto enrolled =
      http_send(port, "POST", "/api/v1/nodes",
                {{"name", "gpu-vm-crash"},
                 {"driver", "redfish"},
                 {"endpoint", fleet.endpoint(0)},
                 {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                token);
  INFO(enrolled.body);
  REQUIRE(enrolled.status == 201);
  const std::string node = enrolled.json()["id"];
  json seen;
  for (int i = 0; i < 600; ++i) {
    seen = get_json(port, "/api/v1/nodes/" + node, token);
    if (seen["lifecycle"] == "available") break;
    std::this_thread::sleep_for(100ms);
  }
  REQUIRE(seen["lifecycle"] == "available");

  std::string iso(150'000, 'i');
  iso.replace(0, 16, "IRONHOLD-ISO-001");
  HttpRequest upload;
  upload.method = "POST";
  upload.target = "/api/v1/boot-images?name=installer.iso&version=1";
  upload.body = iso;
  upload.token = token;
  upload.content_type = "application/octet-stream";
  const auto uploaded = http_request(port, upload);
  REQUIRE(uploaded.status == 201);
  const std::string image = uploaded.json()["id"];

  const auto started = http_send(port, "POST", "/api/v1/nodes/" + node + "/reprovision",
                                 {{"via", "virtual-media"}, {"image", image}}, token);
  INFO(started.body);
  REQUIRE(started.status == 202);
  const std::string task_id = started.json()["id"];

  // Kill it once the installer has its settings (it is installing, for 8 s) and the task waits for
  // its call-back.
  json task;
  auto installing = [&] {
    for (const auto& step : task["steps"])
      if (step["name"] == "install" &&
          step["detail"].get<std::string>().find("fetched its settings") != std::string::npos)
        return true;
    return false;
  };
  for (int i = 0; i < 600 && !installing(); ++i) {
    std::this_thread::sleep_for(100ms);
    task = get_json(port, "/api/v1/tasks/" + task_id, token);
  }
  INFO(task.dump(2));
  REQUIRE(installing());
  REQUIRE(fleet.describe(0)["installer"]["callbacks"] == 0);
  serve.process->signal(SIGKILL);
  REQUIRE(serve.process->wait(30s) == -SIGKILL);

  auto again = start_serve(data, port, scratch.path() / "serve2.log");
  for (int i = 0; i < 1200; ++i) {
    task = get_json(port, "/api/v1/tasks/" + task_id, token);
    if (task["state"] != "queued" && task["state"] != "running") break;
    std::this_thread::sleep_for(100ms);
  }
  INFO(task.dump(2));
  REQUIRE(task["state"] == "succeeded");
  CHECK(task["attempts"].get<int>() > 1);  // the restarted instance finished it
  CHECK(get_json(port, "/api/v1/nodes/" + node, token)["lifecycle"] == "deployed");
  for (const auto& step : task["steps"]) CHECK(step["state"] == "succeeded");

  const json bmc = fleet.describe(0);
  INFO(bmc.dump(2));
  CHECK(bmc["counters"]["media_inserts"] == 1);
  CHECK(bmc["counters"]["media_boots"] == 1);
  CHECK(bmc["counters"]["media_ejects"] == 1);
  CHECK(bmc["installer"]["callbacks"] == 1);
  CHECK(bmc["virtual_media"]["inserted"] == false);
  unsigned resets = 0;
  for (const auto& [type, count] : bmc["counters"]["resets"].items())
    resets += count.get<unsigned>();
  CHECK(resets == 1);
  again.process->signal(SIGTERM);
  CHECK(again.process->wait(60s) == 0);
}

}  // namespace virtual_media_crash_test

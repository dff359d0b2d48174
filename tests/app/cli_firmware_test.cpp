// `ironhold firmware` and `ironhold rollout` as a script runs them: the real binary uploads an
// image (streamed, with its SHA-256), updates a simulated server with --wait, and follows a
// rollout to its end; exit codes tell success from failure.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "sim/redfish/faults.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/app/cli_run.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cli_firmware_test {

#ifdef IRONHOLD_BINARY
using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

struct Setup {
  sim::RedfishFleet fleet{[] {
    sim::RedfishFleetOptions o;
    o.mockup_dir = project_mockup("hgx-gpu-server");
    o.count = 2;
    o.updater.update_time = 400ms;
    return o;
  }()};
  TestServer server;
  std::map<std::string, std::string> env;

  Setup() {
    fleet.start();
    env = {{"IRONHOLD_TOKEN", server.token("admin")}};
    for (int i = 0; i < 2; ++i) {
      const auto res =
          http_send(server.port(), "POST", "/api/v1/nodes",
                    {{"name", "gpu-0" + std::to_string(i + 1)},
                     {"driver", "redfish"},
                     {"endpoint", fleet.endpoint(i)},
                     {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                    env["IRONHOLD_TOKEN"]);
      REQUIRE(res.status == 201);
    }
  }

  Run cli(std::vector<std::string> args) {
    args.insert(args.end(), {"--url", server.url()});
    return run_cli(std::move(args), env);
  }

  // An image file of the simulated firmware's format; returns the id the CLI printed in JSON.
  std::string upload(const std::string& version) {
    std::string bytes = "IRONHOLD-FIRMWARE component=BMC version=" + version + "\n";
    bytes.resize(3u << 20, 'x');  // bigger than one stored chunk
    const std::string file = temp_file(bytes);
    const Run up =
        cli({"firmware", "upload", file, "--version", version, "--component", "BMC", "-o", "json"});
    std::filesystem::remove(file);
    INFO(up.out << up.err);
    REQUIRE(up.status == 0);
    const json image = json::parse(up.out);
    CHECK(image["size"] == 3u << 20);
    return image["id"];
  }
};

}  // namespace

TEST_CASE("ironhold firmware uploads an image and updates a node with --wait", "[cli][firmware]") {
  Setup s;
  const std::string image = s.upload("42.0.1");
  const Run listed = s.cli({"firmware", "images"});
  CHECK(listed.status == 0);
  CHECK(contains(listed.out, image));
  CHECK(contains(listed.out, "42.0.1"));

  const Run update = s.cli({"firmware", "update", "gpu-01", "--image", image, "--wait"});
  INFO("stdout: " << update.out << "\nstderr: " << update.err);
  CHECK(update.status == 0);
  CHECK(contains(update.out, "gpu-01  firmware BMC 42.0.1  succeeded"));
  CHECK(s.fleet.describe(0)["counters"]["updates_completed"] == 1);

  // A failing update: exit 1 and the BMC's reason.
  sim::redfish::Faults fails;
  fails.update_fails = true;
  s.fleet.set_faults(1, fails);
  const Run failed = s.cli({"firmware", "update", "gpu-02", "--image", image, "--wait"});
  CHECK(failed.status == 1);
  CHECK(contains(failed.out, "update_fails"));
  CHECK(s.cli({"firmware", "update", "gpu-02"}).status != 0);  // --image is required
  CHECK(s.cli({"firmware", "rm", image}).status == 0);
}

TEST_CASE("ironhold rollout start --wait follows a rollout to its end", "[cli][firmware]") {
  Setup s;
  const std::string image = s.upload("43.0.0");
  const Run rollout = s.cli({"rollout", "start", "--image", image, "--selector",
                             "names=gpu-01,names=gpu-02", "--health-gate", "0", "--wait"});
  INFO("stdout: " << rollout.out << "\nstderr: " << rollout.err);
  CHECK(rollout.status == 0);
  CHECK(contains(rollout.out, "2 nodes in 2 batches"));
  CHECK(contains(rollout.out, "succeeded"));
  const Run list = s.cli({"rollout", "list", "-o", "json"});
  REQUIRE(list.status == 0);
  const json items = json::parse(list.out);
  REQUIRE(items.size() == 1);
  CHECK(items[0]["state"] == "succeeded");
  const std::string id = items[0]["id"];
  const Run show = s.cli({"rollout", "show", id});
  CHECK(show.status == 0);
  CHECK(contains(show.out, "canary"));
  CHECK(s.cli({"rollout", "pause", id}).status != 0);  // it has ended: 409
}
#endif

}  // namespace cli_firmware_test

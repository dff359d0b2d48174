// `ironhold sim openstack|ec2|bcc` as processes: each prints one JSON line (provider, endpoint,
// region, credentials) once listening, and that line, posted as a cloud account, works: the
// service's sync lists the simulated cloud's instances.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/server/child_process.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace sim_cloud_command_test {

using namespace ironhold::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST_CASE("each cloud simulator prints an account its provider's driver can use",
          "[app][sim][cloud]") {
  ironhold::CloudSyncOptions sync;
  sync.idle_wait = 100ms;
  TestServer server({}, {}, std::nullopt, sync);
  const auto admin = server.token("admin");
  for (const std::string provider : {"openstack", "ec2", "bcc"}) {
    INFO(provider);
    const fs::path out_file = fs::temp_directory_path() /
                              ("ih-sim-" + provider + "-" + std::to_string(::getpid()) + ".out");
    // Stdout (the JSON line) into the file ChildProcess keeps; the log to /dev/null.
    const std::string command = std::string("exec '") + IRONHOLD_BINARY + "' sim " + provider +
                                " --listen 127.0.0.1:0 1>&2 2>/dev/null";
    ChildProcess sim("/bin/sh", {"-c", command}, out_file);
    const auto line = sim.wait_for_line("\"endpoint\"", 60s);
    REQUIRE(line);
    const nlohmann::json printed = nlohmann::json::parse(*line);
    CHECK(printed["provider"] == provider);
    CHECK(printed["endpoint"].get<std::string>().rfind("http://127.0.0.1:", 0) == 0);
    REQUIRE(printed["credentials"].is_object());

    nlohmann::json account = {{"name", provider + "-sim"},
                              {"provider", provider},
                              {"endpoint", printed["endpoint"]},
                              {"region", printed["region"]},
                              {"credentials", printed["credentials"]}};
    REQUIRE(http_send(server.port(), "POST", "/api/v1/cloud-accounts", account, admin).status ==
            201);
    nlohmann::json shown;
    for (int i = 0; i < 300; ++i) {
      shown = http_get(server.port(), "/api/v1/cloud-accounts/" + provider + "-sim", admin).json();
      if (!shown["sync"]["last_sync_at"].is_null() || !shown["sync"]["last_error"].is_null()) break;
      std::this_thread::sleep_for(100ms);
    }
    INFO(shown.dump());
    CHECK(shown["sync"]["last_error"].is_null());
    CHECK(shown["node_count"].get<int>() > 0);

    sim.signal(SIGTERM);
    const auto status = sim.wait(10s);
    REQUIRE(status);
    CHECK(*status == 0);
    fs::remove(out_file);
  }
}

}  // namespace sim_cloud_command_test

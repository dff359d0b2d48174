// --state-dir: a second fleet on the same directory comes back on the same endpoints with the same
// certificates and state; a saved port that is taken is a clear error, not a silent move.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "curl_client.hpp"
#include "inventory/error.hpp"
#include "sim/redfish/state_dir.hpp"
#include "sim_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace redfish_state_dir_test {

using ironhold::test::curl_fetch;
using ironhold::test::CurlCall;
using ironhold::test::rackmount_system;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("ih-sim-state-" + std::to_string(::getpid()) + "-" +
                                               std::to_string(std::rand()));
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

TEST_CASE("files are written whole, by rename", "[sim][redfish][state]") {
  TempDir dir;
  fs::create_directories(dir.path);
  ironhold::sim::redfish::write_atomically(dir.path / "a.json", "{\"x\": 1}\n");
  ironhold::sim::redfish::write_atomically(dir.path / "a.json", "{\"x\": 2}\n", true);
  CHECK_FALSE(fs::exists(dir.path / "a.json.tmp"));
  CHECK((fs::status(dir.path / "a.json").permissions() & fs::perms::others_read) ==
        fs::perms::none);
  const ironhold::sim::redfish::StateDir state(dir.path);
  CHECK_FALSE(state.load(0).endpoint);
  fs::create_directories(state.bmc_dir(0));
  ironhold::sim::redfish::write_atomically(state.bmc_dir(0) / "state.json", "[1,");
  CHECK_THROWS_AS(state.load(0), ironhold::Error);
}

TEST_CASE("a fleet restarted on its state dir keeps endpoints, certificates and state",
          "[sim][redfish][state]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  TempDir dir;
  auto options = ironhold::test::fleet_options(2);
  options.state_dir = dir.path;
  std::vector<std::string> endpoints;
  std::string fingerprint0, fingerprint1, sel_id;
  {
    ironhold::sim::RedfishFleet first(options);
    first.start();
    endpoints = {first.endpoint(0), first.endpoint(1)};
    fingerprint0 = first.certificate_fingerprint(0);
    fingerprint1 = first.change_certificate(1);
    first.state(0).set_power("", "Off");
    first.state(0).set_health("Warning");
    sel_id = first.state(0).append_sel("Warning", "kept across restarts")["Id"];
    CurlCall boot;
    boot.method = "PATCH";
    boot.body =
        R"({"Boot": {"BootSourceOverrideTarget": "Pxe", "BootSourceOverrideEnabled": "Continuous"}})";
    REQUIRE(curl_fetch(first.endpoint(0) + rackmount_system, boot).status == 200);
  }
  CHECK(fs::exists(dir.path / "bmc-0000" / "endpoint.json"));
  CHECK(fs::exists(dir.path / "bmc-0001" / "key.pem"));

  ironhold::sim::RedfishFleet second(options);
  second.start();
  CHECK(second.endpoint(0) == endpoints[0]);
  CHECK(second.endpoint(1) == endpoints[1]);
  CHECK(second.certificate_fingerprint(0) == fingerprint0);
  CHECK(second.certificate_fingerprint(1) == fingerprint1);
  const json system = curl_fetch(second.endpoint(0) + rackmount_system).doc();
  CHECK(system["PowerState"] == "Off");
  CHECK(system["Status"]["Health"] == "Warning");
  CHECK(system["Boot"]["BootSourceOverrideTarget"] == "Pxe");
  CHECK(system["Boot"]["BootSourceOverrideEnabled"] == "Continuous");
  CHECK(curl_fetch(second.endpoint(0) + rackmount_system + "/LogServices/Log1/Entries/" + sel_id)
            .doc()["Message"] == "kept across restarts");
  CHECK(curl_fetch(second.endpoint(1) + rackmount_system).doc()["PowerState"] == "On");

  // The first BMC's saved port is held by `second`: a third fleet must refuse, naming it.
  const std::string port = endpoints[0].substr(endpoints[0].rfind(':') + 1);
  try {
    ironhold::sim::RedfishFleet third(options);
    FAIL("a fleet started on ports that are taken");
  } catch (const ironhold::Error& e) {
    CHECK(e.kind() == ironhold::ErrorKind::invalid);
    CHECK(std::string(e.what()).find(":" + port) != std::string::npos);
    CHECK(std::string(e.what()).find("bmc-0000") != std::string::npos);
  }
}

}  // namespace redfish_state_dir_test

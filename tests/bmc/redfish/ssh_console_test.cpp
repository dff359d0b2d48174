// The Redfish driver's SSH serial console against the simulated BMC's (libssh server, the host's
// HostConsole behind it), over real TCP on loopback. What the host received and printed, and the
// host key and logins, are read from the simulator's side; the simulator's fingerprint itself is
// checked against OpenSSH's ssh-keygen in tests/sim/redfish_ssh_console_test.cpp. Where the
// console is, is read from the Manager document: the DMTF mockup's own (older) form is parsed
// with its expected port read from its NetworkProtocol file.
#include "bmc/redfish/ssh_console.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <mutex>

#include "bmc/redfish/redfish_driver.hpp"
#include "bmc/redfish/serial_console_service.hpp"
#include "driver_test_fixture.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/project_mockups.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ssh_console_test {

using namespace std::chrono_literals;
using ironhold::ConsoleEvents;
using ironhold::DriverError;
using ironhold::DriverErrorCode;
using ironhold::DriverTarget;
using ironhold::PowerAction;
using ironhold::bmc::redfish::RedfishDriver;
using ironhold::bmc::redfish::ssh_console_service;
using ironhold::bmc::redfish::SshConsoleService;
using ironhold::test::eventually;
using ironhold::test::IoThreads;
using nlohmann::json;

namespace {

struct Screen {
  std::mutex mutex;
  std::string text;
  std::optional<DriverError> ended;

  ConsoleEvents events() {
    ConsoleEvents e;
    e.output = [this](std::string_view bytes) {
      std::lock_guard lock(mutex);
      text.append(bytes);
    };
    e.ended = [this](const DriverError& why) {
      std::lock_guard lock(mutex);
      ended = why;
    };
    return e;
  }
  bool shows(const std::string& needle) {
    return eventually(
        [&] {
          std::lock_guard lock(mutex);
          return text.find(needle) != std::string::npos;
        },
        15s);
  }
  std::optional<DriverError> end() {
    std::lock_guard lock(mutex);
    return ended;
  }
};

// Simulated BMCs with SSH consoles, each on an address of its own.
struct ConsoleFleet {
  explicit ConsoleFleet(
      const std::string& address, std::string entry_command = {},
      std::filesystem::path mockup = ironhold::test::project_mockup("hgx-gpu-server"),
      bool consoles = true) {
    ironhold::sim::RedfishFleetOptions options;
    options.mockup_dir = std::move(mockup);
    options.listen = address + ":0";
    options.reset_delay = 150ms;
    options.ssh_consoles = consoles;
    options.ssh.entry_command = std::move(entry_command);
    fleet = std::make_unique<ironhold::sim::RedfishFleet>(options);
    fleet->start();
  }
  DriverTarget target(std::string password = "password") const {
    DriverTarget t;
    t.node_id = "node-1";
    t.node_name = "gpu-1";
    std::string why;
    const auto endpoint = ironhold::parse_endpoint(fleet->endpoint(0), why);
    REQUIRE(endpoint);
    t.endpoint = *endpoint;
    t.credentials = ironhold::Credentials{"admin", std::move(password)};
    return t;
  }
  json console() { return fleet->state(0).console(); }
  std::unique_ptr<ironhold::sim::RedfishFleet> fleet;
};

}  // namespace

TEST_CASE("The SSH serial console carries keys to the host and its boot log back",
          "[bmc][redfish][console][ssh]") {
  ConsoleFleet bmc("127.0.89.1");
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  Screen screen;
  auto report = io.run(driver.open_console(bmc.target(), "", screen.events()));
  REQUIRE_FALSE(report.error);
  REQUIRE(report.console);
  CHECK(report.protocol == "ssh");
  // Trust on first use: the key the simulator holds, for the caller to pin.
  CHECK(report.ssh_host_key == bmc.fleet->ssh_host_key_fingerprint(0));
  CHECK(eventually([&] { return bmc.console()["active"] == true; }, 10s));

  REQUIRE(report.console->write("root\r"));
  CHECK(screen.shows("Login incorrect"));
  CHECK(screen.shows("sim-node-0 login: "));
  CHECK(bmc.console()["received"] == "root\r");

  // A power cycle through Redfish: the host's shutdown and its boot come through the console.
  const auto cycled = io.run(driver.power(bmc.target(), "", PowerAction::cycle));
  REQUIRE_FALSE(cycled.error);
  CHECK(screen.shows("reboot: Power down"));
  CHECK(screen.shows("Booting from disk"));
  CHECK(screen.shows("Debian GNU/Linux 12 sim-node-0 ttyS0"));
  bmc.fleet->state(0).console_print("Kernel panic - not syncing: Fatal exception\r\n");
  CHECK(screen.shows("Kernel panic - not syncing"));

  // A break is sent as RFC 4335's request; the session stays.
  report.console->send_break();
  REQUIRE(report.console->write("x"));
  CHECK(eventually([&] { return bmc.console()["received"] == "root\rx"; }, 10s));

  io.run(report.console->close());
  CHECK_FALSE(report.console->is_open());
  CHECK_FALSE(report.console->write("y"));
  CHECK(eventually([&] { return bmc.console()["active"] == false; }, 10s));
  CHECK_FALSE(screen.end());  // close() is not the BMC ending it
  io.run(driver.shutdown());
}

TEST_CASE("A pinned SSH host key the BMC no longer has gets no password",
          "[bmc][redfish][console][ssh]") {
  ConsoleFleet bmc("127.0.89.2");
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const std::string first_key = bmc.fleet->ssh_host_key_fingerprint(0);

  SECTION("the pinned key opens") {
    Screen screen;
    DriverTarget target = bmc.target();
    target.pinned_ssh_host_key = first_key;
    auto report = io.run(driver.open_console(target, "", screen.events()));
    REQUIRE_FALSE(report.error);
    io.run(report.console->close());
  }
  SECTION("another key is refused before the login") {
    const std::string second_key = bmc.fleet->change_ssh_host_key(0);
    REQUIRE(second_key != first_key);
    const auto before = bmc.fleet->state(0).counters();
    Screen screen;
    DriverTarget target = bmc.target();
    target.pinned_ssh_host_key = first_key;
    auto report = io.run(driver.open_console(target, "", screen.events()));
    REQUIRE(report.error);
    CHECK(report.error->code == DriverErrorCode::tls_pin_mismatch);
    CHECK_THAT(report.error->message, Catch::Contains(second_key) && Catch::Contains(first_key));
    CHECK(report.ssh_host_key == second_key);
    CHECK_FALSE(report.console);
    const auto after = bmc.fleet->state(0).counters();
    CHECK(after.ssh_logins == before.ssh_logins);
    CHECK(after.ssh_failed_logins == before.ssh_failed_logins);
  }
  io.run(driver.shutdown());
}

TEST_CASE("A password the BMC refuses is auth_failed, and the message holds no secret",
          "[bmc][redfish][console][ssh]") {
  ConsoleFleet bmc("127.0.89.3");
  IoThreads io;
  Screen screen;
  // Straight to the SSH side: through the driver, the Redfish login would refuse it first.
  ironhold::bmc::redfish::SshConsoleParams params;
  params.host = "127.0.89.3";
  params.port = bmc.fleet->ssh_console_port(0);
  params.username = "admin";
  params.password = "wrong-s3cret";
  auto opened = io.run(ironhold::bmc::redfish::open_ssh_console(params, screen.events()));
  REQUIRE(opened.error);
  CHECK(opened.error->code == DriverErrorCode::auth_failed);
  CHECK_THAT(opened.error->message, Catch::Contains("admin") && !Catch::Contains("s3cret"));
  CHECK_FALSE(opened.console);
  CHECK(bmc.fleet->state(0).counters().ssh_failed_logins >= 1);
  CHECK(bmc.fleet->state(0).counters().ssh_logins == 0);

  params.port = 1;  // nothing listens there
  auto refused = io.run(ironhold::bmc::redfish::open_ssh_console(params, screen.events()));
  REQUIRE(refused.error);
  CHECK(refused.error->code == DriverErrorCode::unreachable);
}

TEST_CASE("A console behind the BMC's CLI is entered with its ConsoleEntryCommand",
          "[bmc][redfish][console][ssh]") {
  ConsoleFleet bmc("127.0.89.4", "console com2");
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  Screen screen;
  auto report = io.run(driver.open_console(bmc.target(), "", screen.events()));
  REQUIRE_FALSE(report.error);
  CHECK(screen.shows("Connected to the host's serial console"));
  CHECK(eventually([&] { return bmc.console()["active"] == true; }, 10s));
  REQUIRE(report.console->write("ls\r"));
  CHECK(screen.shows("Login incorrect"));
  // The command went to the CLI, not to the host.
  CHECK(bmc.console()["received"] == "ls\r");
  io.run(report.console->close());
  io.run(driver.shutdown());
}

TEST_CASE("A newer session taking the BMC's console ends ours through `ended`",
          "[bmc][redfish][console][ssh]") {
  ConsoleFleet bmc("127.0.89.5");
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  Screen first, second;
  auto one = io.run(driver.open_console(bmc.target(), "", first.events()));
  REQUIRE_FALSE(one.error);
  CHECK(eventually([&] { return bmc.console()["active"] == true; }, 10s));
  auto two = io.run(driver.open_console(bmc.target(), "", second.events()));
  REQUIRE_FALSE(two.error);
  CHECK(first.shows("taken over by another session"));
  CHECK(eventually([&] { return first.end().has_value(); }, 10s));
  CHECK_FALSE(one.console->write("x"));
  REQUIRE(two.console->write("y"));
  CHECK(eventually([&] { return bmc.console()["received"] == "y"; }, 10s));
  io.run(one.console->close());
  io.run(two.console->close());
  io.run(driver.shutdown());
}

TEST_CASE("A BMC without an SSH serial console is unsupported", "[bmc][redfish][console][ssh]") {
  ConsoleFleet bmc("127.0.89.6", "", ironhold::test::project_mockup("compute-server"), false);
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  Screen screen;
  auto report = io.run(driver.open_console(bmc.target(), "", screen.events()));
  REQUIRE(report.error);
  CHECK(report.error->code == DriverErrorCode::unsupported);
  CHECK_THAT(report.error->message, Catch::Contains("SerialConsole"));
  io.run(driver.shutdown());
}

TEST_CASE("Where the SSH console is, from the Manager as real services write it",
          "[bmc][redfish][console][ssh]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  const auto dir = ironhold::test::rackmount_mockup();
  const json manager = ironhold::test::mockup_document(dir, "/redfish/v1/Managers/BMC");
  const json protocol =
      ironhold::test::mockup_document(dir, manager["NetworkProtocol"]["@odata.id"]);

  SECTION("the older form: ConnectTypesSupported and the NetworkProtocol's SSH port") {
    REQUIRE(manager["SerialConsole"]["ConnectTypesSupported"].dump().find("SSH") !=
            std::string::npos);
    const auto found = ssh_console_service(manager, &protocol);
    REQUIRE(std::holds_alternative<SshConsoleService>(found));
    CHECK(std::get<SshConsoleService>(found).port == protocol["SSH"]["Port"].get<unsigned>());
    CHECK(std::get<SshConsoleService>(found).entry_command.empty());
  }
  SECTION("Manager v1.10's SSH object, with a CLI command before the console") {
    json m = manager;
    m["SerialConsole"]["SSH"] = {{"ServiceEnabled", true},
                                 {"Port", 2200},
                                 {"SharedWithManagerCLI", true},
                                 {"ConsoleEntryCommand", "console com2"}};
    const auto found = ssh_console_service(m, nullptr);
    REQUIRE(std::holds_alternative<SshConsoleService>(found));
    CHECK(std::get<SshConsoleService>(found).port == 2200);
    CHECK(std::get<SshConsoleService>(found).entry_command == "console com2");
  }
  SECTION("switched off, or offered over other protocols only") {
    json off = manager;
    off["SerialConsole"]["SSH"] = {{"ServiceEnabled", false}, {"Port", 2200}};
    json ipmi_only = manager;
    ipmi_only["SerialConsole"]["ConnectTypesSupported"] = json::array({"IPMI", "Telnet"});
    json ssh_off = protocol;
    ssh_off["SSH"]["ProtocolEnabled"] = false;
    json none = manager;
    none.erase("SerialConsole");
    for (const auto& [m, p] : {std::pair{off, protocol}, std::pair{ipmi_only, protocol},
                               std::pair{manager, ssh_off}, std::pair{none, protocol}}) {
      const auto found = ssh_console_service(m, &p);
      REQUIRE(std::holds_alternative<DriverError>(found));
      CHECK(std::get<DriverError>(found).code == DriverErrorCode::unsupported);
    }
  }
}

TEST_CASE("Vendor Managers' SerialConsole, as captured, says whether there is an SSH console",
          "[bmc][redfish][console][ssh][vendor]") {
  const auto captures = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() /
                        "data" / "vendor-captures";
  int read = 0;
  for (const auto& vendor : std::filesystem::directory_iterator(captures)) {
    const auto managers = vendor.path() / "tree" / "Managers";
    if (!std::filesystem::exists(managers)) continue;
    for (const auto& manager_dir : std::filesystem::directory_iterator(managers)) {
      std::ifstream in(manager_dir.path() / "index.json");
      if (!in) continue;
      const json manager = json::parse(in);
      INFO(manager_dir.path().string());
      ++read;
      const auto found = ssh_console_service(manager, nullptr);
      // What the capture says: the service on, and SSH among its connect types.
      const json serial = manager.value("SerialConsole", json());
      const bool offered =
          serial.is_object() && serial.value("ServiceEnabled", false) &&
          serial.value("ConnectTypesSupported", json::array()).dump().find("\"SSH\"") !=
              std::string::npos;
      CHECK(std::holds_alternative<SshConsoleService>(found) == offered);
      if (offered) {
        // No NetworkProtocol read: OpenSSH's port.
        CHECK(std::get<SshConsoleService>(found).port == 22);
      } else {
        CHECK(std::get<DriverError>(found).code == DriverErrorCode::unsupported);
      }
    }
  }
  CHECK(read >= 6);
}

}  // namespace ssh_console_test

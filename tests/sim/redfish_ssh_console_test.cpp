// The simulated Redfish BMC's SSH serial console against OpenSSH's own client, in a
// pseudo-terminal as an operator runs it: `ssh-keyscan` and `ssh-keygen -lf` say what the host
// key's fingerprint is (the simulator's own figure must match it, since Ironhold pins that form),
// `ssh` logs in with the BMC's password, types into the host and shows its boot after a Redfish
// reset. The Manager's SerialConsole.SSH must name the port ssh reached.
#include <catch2/catch.hpp>
#include <fstream>
#include <thread>

#include "curl_client.hpp"
#include "ipmi_tools.hpp"
#include "sim_fixture.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/server/pty_process.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace redfish_ssh_console_test {

using namespace std::chrono_literals;
using ironhold::sim::RedfishFleet;
using ironhold::test::eventually;
using ironhold::test::find_tool;
using ironhold::test::have_tool;
using ironhold::test::PtyProcess;
using ironhold::test::run_tool;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct SshFleet {
  explicit SshFleet(const std::string& address, const std::string& entry = {}) {
    auto options = ironhold::test::fleet_options();
    options.listen = address + ":0";
    options.ssh_consoles = true;
    options.ssh.entry_command = entry;
    fleet = std::make_unique<RedfishFleet>(options);
    fleet->start();
    host = address;
    port = fleet->ssh_console_port(0);
    dir = fs::temp_directory_path() / ("ih-ssh-test-" + std::to_string(::getpid()) + "-" + address);
    fs::create_directories(dir);
  }
  ~SshFleet() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }

  // known_hosts as ssh-keyscan writes it for this BMC's console.
  fs::path known_hosts() {
    const auto scan = run_tool("ssh-keyscan", {"-t", "ed25519", "-p", std::to_string(port), host});
    REQUIRE(scan.ok());
    std::string lines;
    std::istringstream in(scan.output);
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line[0] != '#') lines += line + "\n";
    REQUIRE_FALSE(lines.empty());
    const fs::path file = dir / "known_hosts";
    std::ofstream(file) << lines;
    return file;
  }

  std::vector<std::string> ssh(const fs::path& known_hosts) const {
    return {find_tool("ssh"),
            "-tt",
            "-F",
            "/dev/null",
            "-p",
            std::to_string(port),
            "-o",
            "UserKnownHostsFile=" + known_hosts.string(),
            "-o",
            "GlobalKnownHostsFile=/dev/null",
            "-o",
            "StrictHostKeyChecking=yes",
            "-o",
            "PreferredAuthentications=password",
            "-o",
            "PubkeyAuthentication=no",
            "-o",
            "IdentityAgent=none",
            "-o",
            "NumberOfPasswordPrompts=1",
            "admin@" + host};
  }

  json console() { return fleet->state(0).console(); }

  std::unique_ptr<RedfishFleet> fleet;
  std::string host;
  unsigned port = 0;
  fs::path dir;
};

}  // namespace

TEST_CASE("OpenSSH's fingerprint of the simulated console's host key is the simulator's",
          "[sim][redfish][console][ssh]") {
  if (!ironhold::test::have_rackmount_mockup() || !have_tool("ssh-keyscan")) return;
  SshFleet bmc("127.0.89.20");
  const auto printed = run_tool("ssh-keygen", {"-lf", bmc.known_hosts().string()});
  REQUIRE(printed.ok());
  // "256 SHA256:... [127.0.89.20]:PORT (ED25519)"
  CHECK_THAT(printed.output, Catch::Contains(" " + bmc.fleet->ssh_host_key_fingerprint(0) + " "));
  CHECK_THAT(printed.output, Catch::Contains("(ED25519)"));

  // The Manager advertises that console, on the port ssh-keyscan reached.
  const auto manager =
      ironhold::test::curl_fetch(bmc.fleet->endpoint(0) + "/redfish/v1/Managers/BMC").doc();
  CHECK(manager["SerialConsole"]["SSH"]["Port"] == bmc.port);
  CHECK(manager["SerialConsole"]["SSH"]["ServiceEnabled"] == true);
  CHECK(manager["SerialConsole"]["ConnectTypesSupported"] == json::array({"SSH"}));
}

TEST_CASE("ssh logs in to the simulated console, types into the host and shows its boot",
          "[sim][redfish][console][ssh]") {
  if (!ironhold::test::have_rackmount_mockup() || !have_tool("ssh")) return;
  SshFleet bmc("127.0.89.21");
  PtyProcess ssh(bmc.ssh(bmc.known_hosts()));
  REQUIRE(ssh.wait_for("password: "));
  REQUIRE(ssh.type("password\r"));
  // ssh makes its terminal raw once the session is up.
  REQUIRE(ssh.wait_until_raw());
  CHECK(eventually([&] { return bmc.console()["active"] == true; }, 10s));
  REQUIRE(ssh.type("root\r"));
  CHECK(ssh.wait_for("Login incorrect"));
  CHECK(ssh.wait_for("sim-node-0 login: "));
  CHECK(bmc.console()["received"] == "root\r");

  // A reset through Redfish: the host goes down and boots, line by line, on the console, from
  // what the System's boot override says (the mockup's: a one-time PXE boot).
  const std::string system = bmc.fleet->endpoint(0) + ironhold::test::rackmount_system;
  const json boot = ironhold::test::curl_fetch(system).doc()["Boot"];
  std::string device = "disk";
  if (boot["BootSourceOverrideEnabled"] != "Disabled") {
    device = boot["BootSourceOverrideTarget"].get<std::string>();
    for (auto& c : device) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  const std::string reset = system + "/Actions/ComputerSystem.Reset";
  ironhold::test::CurlCall post;
  post.method = "POST";
  post.body = R"({"ResetType": "ForceRestart"})";
  post.headers = {"Content-Type: application/json"};
  CHECK(ironhold::test::curl_fetch(reset, post).status == 204);
  CHECK(ssh.wait_for("reboot: Power down"));
  CHECK(ssh.wait_for("Booting from " + device));
  CHECK(ssh.wait_for("Debian GNU/Linux 12 sim-node-0 ttyS0"));
  bmc.fleet->state(0).console_print("Kernel panic - not syncing: Fatal exception\r\n");
  CHECK(ssh.wait_for("Kernel panic - not syncing"));

  // ssh's own escape ends the session (after the Enter above, it is at the start of a line).
  REQUIRE(ssh.type("~."));
  CHECK(ssh.wait_exit(10s).has_value());
  CHECK(eventually([&] { return bmc.console()["active"] == false; }, 10s));
  const auto counters = bmc.fleet->state(0).counters();
  CHECK(counters.ssh_logins == 1);
  CHECK(counters.console_sessions == 1);
}

TEST_CASE("The simulated console refuses a wrong password, and a changed key is refused by ssh",
          "[sim][redfish][console][ssh]") {
  if (!ironhold::test::have_rackmount_mockup() || !have_tool("ssh")) return;
  SshFleet bmc("127.0.89.22");
  const fs::path known = bmc.known_hosts();
  {
    PtyProcess ssh(bmc.ssh(known));
    REQUIRE(ssh.wait_for("password: "));
    REQUIRE(ssh.type("not-the-password\r"));
    CHECK(ssh.wait_for("Permission denied"));
    CHECK(ssh.wait_exit(10s).has_value());
  }
  CHECK(bmc.fleet->state(0).counters().ssh_failed_logins == 1);

  bmc.fleet->change_ssh_host_key(0);
  PtyProcess ssh(bmc.ssh(known));
  CHECK(ssh.wait_for("REMOTE HOST IDENTIFICATION HAS CHANGED"));
  CHECK(ssh.wait_exit(10s).has_value());
  CHECK(bmc.fleet->state(0).counters().ssh_logins == 0);
}

TEST_CASE("A console behind the CLI starts with the entry command the Manager names",
          "[sim][redfish][console][ssh]") {
  if (!ironhold::test::have_rackmount_mockup() || !have_tool("ssh")) return;
  SshFleet bmc("127.0.89.23", "console com2");
  const auto manager =
      ironhold::test::curl_fetch(bmc.fleet->endpoint(0) + "/redfish/v1/Managers/BMC").doc();
  REQUIRE(manager["SerialConsole"]["SSH"]["ConsoleEntryCommand"] == "console com2");
  CHECK(manager["SerialConsole"]["SSH"]["SharedWithManagerCLI"] == true);

  PtyProcess ssh(bmc.ssh(bmc.known_hosts()));
  REQUIRE(ssh.wait_for("password: "));
  REQUIRE(ssh.type("password\r"));
  REQUIRE(ssh.wait_until_raw());
  CHECK(ssh.wait_for("-> "));
  REQUIRE(ssh.type("help\r"));
  CHECK(ssh.wait_for("COMMAND NOT RECOGNIZED: help"));
  CHECK(bmc.console()["active"] == false);
  REQUIRE(ssh.type("console com2\r"));
  CHECK(ssh.wait_for("Connected to the host's serial console"));
  CHECK(eventually([&] { return bmc.console()["active"] == true; }, 10s));
  REQUIRE(ssh.type("root\r"));
  CHECK(ssh.wait_for("Login incorrect"));
  CHECK(bmc.console()["received"] == "root\r");
  REQUIRE(ssh.type("~."));
  CHECK(ssh.wait_exit(10s).has_value());
}

}  // namespace redfish_ssh_console_test

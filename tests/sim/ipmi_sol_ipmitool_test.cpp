// The simulated BMC's Serial-over-LAN against the console operators use: `ipmitool -I lanplus
// sol activate`, in a pseudo-terminal as an operator's shell gives it. What ipmitool shows is
// compared with what the simulated host printed and received (its control state), and ipmitool's
// own "~." escape must deactivate the payload on the BMC.
#include <catch2/catch.hpp>
#include <thread>

#include "ipmi_tools.hpp"
#include "tests/support/server/pty_process.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ipmi_sol_ipmitool_test {

using namespace std::chrono_literals;
using ironhold::sim::IpmiFleet;
using ironhold::test::find_tool;
using ironhold::test::have_tool;
using ironhold::test::ipmi_fleet_options;
using ironhold::test::PtyProcess;

namespace {

std::vector<std::string> sol_activate(IpmiFleet& fleet, int suite) {
  return {find_tool("ipmitool"),         "-I",  "lanplus", "-H", fleet.host(0), "-p",
          std::to_string(fleet.port(0)), "-U",  "admin",   "-P", "password",    "-C",
          std::to_string(suite),         "sol", "activate"};
}

}  // namespace

TEST_CASE("ipmitool sol activate types into the simulated host and shows its boot",
          "[sim][ipmi][sol][ipmitool]") {
  if (!have_tool("ipmitool")) return;
  for (const int suite : {3, 17}) {
    DYNAMIC_SECTION("cipher suite " << suite) {
      auto options = ipmi_fleet_options();
      IpmiFleet fleet(options);
      fleet.start();
      PtyProcess ipmitool(sol_activate(fleet, suite));
      REQUIRE(ipmitool.wait_for("SOL Session operational"));
      // ipmitool says so before it makes the terminal raw; a key typed in between would be
      // cooked (CR to LF) by the terminal, not sent by ipmitool as typed.
      REQUIRE(ipmitool.wait_until_raw());
      REQUIRE(ipmitool.type("root\r"));
      CHECK(ipmitool.wait_for("root"));
      CHECK(ipmitool.wait_for("sim-node-0 login: "));
      CHECK(fleet.state(0).console()["received"] == "root\r");

      // The host prints while the console is on: a power cycle's boot log, line by line.
      fleet.state(0).set_power("off");
      fleet.state(0).set_power("on");
      CHECK(ipmitool.wait_for("Booting from disk"));
      CHECK(ipmitool.wait_for("Debian GNU/Linux 12 sim-node-0 ttyS0"));
      fleet.state(0).console_print("Kernel panic - not syncing: Fatal exception\r\n");
      CHECK(ipmitool.wait_for("Kernel panic - not syncing"));

      // ipmitool's escape ends the session and deactivates the payload on the BMC.
      REQUIRE(ipmitool.type("~."));
      const auto status = ipmitool.wait_exit(10s);
      CHECK(status == 0);
      CHECK(fleet.state(0).console()["active"] == false);
      INFO(ipmitool.screen());
    }
  }
}

TEST_CASE("a second ipmitool gets 'already active' until the first one leaves",
          "[sim][ipmi][sol][ipmitool]") {
  if (!have_tool("ipmitool")) return;
  IpmiFleet fleet(ipmi_fleet_options());
  fleet.start();
  PtyProcess first(sol_activate(fleet, 17));
  REQUIRE(first.wait_for("SOL Session operational"));
  PtyProcess second(sol_activate(fleet, 17));
  // ipmitool's words for completion code 80h of Activate Payload.
  CHECK(second.wait_for("SOL payload already active on another session"));
  CHECK(second.wait_exit(10s).value_or(-1) != 0);
  REQUIRE(first.wait_until_raw());
  REQUIRE(first.type("~."));
  CHECK(first.wait_exit(10s) == 0);
  PtyProcess third(sol_activate(fleet, 17));
  CHECK(third.wait_for("SOL Session operational"));
  REQUIRE(third.wait_until_raw());
  REQUIRE(third.type("~."));
  CHECK(third.wait_exit(10s) == 0);
}

}  // namespace ipmi_sol_ipmitool_test

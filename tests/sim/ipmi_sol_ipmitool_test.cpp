// The simulated BMC's Serial-over-LAN against the console operators use: `ipmitool -I lanplus
// sol activate`, in a pseudo-terminal as an operator's shell gives it. What ipmitool shows is
// compared with what the simulated host printed and received (its control state), and ipmitool's
// own "~." escape must deactivate the payload on the BMC.
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <thread>

#include "ipmi_tools.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ipmi_sol_ipmitool_test {

using namespace std::chrono_literals;
using ironhold::sim::IpmiFleet;
using ironhold::test::find_tool;
using ironhold::test::have_tool;
using ironhold::test::ipmi_fleet_options;

namespace {

// A program on the slave side of a pseudo-terminal: what it prints is read from the master side,
// keystrokes are written there.
class PtyProcess {
 public:
  explicit PtyProcess(const std::vector<std::string>& argv) {
    pid_ = ::forkpty(&master_, nullptr, nullptr, nullptr);
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
  }
  ~PtyProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(master_);
  }

  void type(const std::string& keys) {
    REQUIRE(::write(master_, keys.data(), keys.size()) == static_cast<ssize_t>(keys.size()));
  }
  // Reads until `needle` has appeared or `timeout` passes; whether it did.
  bool wait_for(const std::string& needle, std::chrono::milliseconds timeout = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (screen_.find(needle) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{master_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[512];
      const auto n = ::read(master_, buffer, sizeof buffer);
      if (n <= 0) return screen_.find(needle) != std::string::npos;  // the program ended
      screen_.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
  }
  // The exit status, or nullopt when it was still running after `timeout`.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      wait_for("\x01never\x01", 50ms);  // keeps the terminal drained
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
    }
    return std::nullopt;
  }
  const std::string& screen() const { return screen_; }

 private:
  int master_ = -1;
  pid_t pid_ = -1;
  bool exited_ = false;
  std::string screen_;
};

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
      ipmitool.type("root\r");
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
      ipmitool.type("~.");
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
  first.type("~.");
  CHECK(first.wait_exit(10s) == 0);
  PtyProcess third(sol_activate(fleet, 17));
  CHECK(third.wait_for("SOL Session operational"));
  third.type("~.");
  CHECK(third.wait_exit(10s) == 0);
}

}  // namespace ipmi_sol_ipmitool_test

// The Serial-over-LAN console (bmc/ipmi/sol_console) against two BMCs: Ironhold's simulator
// (echo, a boot log after a power cycle, a takeover by a second console, a wrong password, a
// console stopped on the simulator's side) and OpenIPMI's ipmi_sim, a SOL implementation nobody
// here wrote, whose host serial port is a TCP server this test runs. What the host printed and
// received is read from the host's side (the simulator's control state, the TCP peer), not from
// our console.
#include "bmc/ipmi/sol_console.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <mutex>
#include <thread>

#include "bmc/ipmi/commands.hpp"
#include "bmc/ipmi/ipmi_driver.hpp"
#include "sim/ipmi/fleet.hpp"
#include "tests/bmc/http/io_threads.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/server/bmc_peers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace sol_console_test {

using namespace ironhold;
using namespace ironhold::bmc::ipmi;
using namespace std::chrono_literals;
using boost::asio::ip::udp;
using test::eventually;
using test::IoThreads;

namespace {

// What a console printed, collected from the client's strand, read from the test's thread.
struct Screen {
  std::mutex mutex;
  std::string text;
  std::optional<DriverError> ended;

  SolConsoleEvents events() {
    return {[this](std::string_view chars) {
              std::lock_guard lock(mutex);
              text.append(chars);
            },
            [this](const DriverError& why) {
              std::lock_guard lock(mutex);
              ended = why;
            }};
  }
  bool shows(const std::string& needle) {
    std::lock_guard lock(mutex);
    return text.find(needle) != std::string::npos;
  }
  bool has_ended() {
    std::lock_guard lock(mutex);
    return ended.has_value();
  }
  std::string all() {
    std::lock_guard lock(mutex);
    return text;
  }
};

SessionParams params_for(const std::string& address, unsigned short port,
                         std::vector<std::uint8_t> suites, std::string password = "password") {
  SessionParams p;
  p.bmc = udp::endpoint(boost::asio::ip::make_address(address), port);
  p.user = "admin";
  p.password = std::move(password);
  p.cipher_suites = std::move(suites);
  return p;
}

LanClientOptions quick() {
  LanClientOptions o;
  o.first_timeout = 200ms;
  o.max_timeout = 400ms;
  o.attempts = 3;
  return o;
}

sim::IpmiFleetOptions fleet_on(const std::string& address) {
  sim::IpmiFleetOptions o;
  o.listen = address + ":0";
  o.cycle_delay = 300ms;
  return o;
}

// A simulated BMC of its own on `address`, served from a thread, and a client on two I/O threads.
struct SimBmc {
  explicit SimBmc(const std::string& address) : fleet(fleet_on(address)) { fleet.start(); }
  sim::IpmiFleet fleet;
  IoThreads io;
  LanClient client{io.io.get_executor(), quick()};
};

std::shared_ptr<SolConsole> open_console(IoThreads& io, LanClient& client, const SessionParams& p,
                                         Screen& screen) {
  auto opened = io.run(SolConsole::open(client, p, screen.events()));
  if (auto* error = std::get_if<DriverError>(&opened)) FAIL(error->message);
  return std::get<std::shared_ptr<SolConsole>>(opened);
}

}  // namespace

TEST_CASE("typing into a simulated node's serial console echoes, and a power cycle shows its boot",
          "[ipmi][sol][console]") {
  SimBmc bmc("127.0.88.1");
  auto& [fleet, io, client] = bmc;
  const auto p = params_for("127.0.88.1", fleet.port(0), {17});
  Screen screen;
  auto console = open_console(io, client, p, screen);
  CHECK(fleet.state(0).console()["active"] == true);

  REQUIRE(console->write("hello\r"));
  CHECK(eventually([&] { return screen.shows("hello"); }));
  CHECK(eventually([&] { return screen.shows("sim-node-0 login: "); }));
  // The host got the keys as typed.
  CHECK(fleet.state(0).console()["received"] == "hello\r");

  // A power cycle through the polls' own session: the console keeps its session and shows the
  // boot, from the firmware to the login prompt.
  const CallResult cycled = io.run(client.call(p, chassis_control(ChassisControl::power_cycle)));
  REQUIRE_FALSE(cycled.error);
  REQUIRE(cycled.completion_code == 0);
  CHECK(eventually([&] { return screen.shows("reboot: Power down"); }));
  CHECK(eventually([&] { return screen.shows("Booting from disk"); }));
  CHECK(eventually([&] { return screen.shows("Reached target multi-user.target"); }));
  const std::string history = fleet.state(0).console()["history"];
  CHECK(history.find("Linux version") != std::string::npos);
  CHECK(screen.all().find("Linux version") != std::string::npos);
  CHECK_FALSE(screen.has_ended());
  CHECK(console->stats().characters_out == 6);

  io.run(console->close());
  CHECK_FALSE(console->open());
  CHECK(eventually([&] { return fleet.state(0).console()["active"] == false; }));
  CHECK_FALSE(screen.has_ended());  // closing from this side calls nothing
}

TEST_CASE("a second console takes the serial port over and the first one hears so and ends",
          "[ipmi][sol][console]") {
  SimBmc bmc("127.0.88.2");
  auto& [fleet, io, first_client] = bmc;
  LanClient second_client(io.io.get_executor(), quick());
  const auto p = params_for("127.0.88.2", fleet.port(0), {3});
  Screen first, second;
  auto a = open_console(io, first_client, p, first);
  // The BMC answers the second activation "already active" (80h); the console deactivates the
  // stale one and activates again, as an operator taking over expects.
  auto b = open_console(io, second_client, p, second);
  CHECK(eventually([&] { return first.has_ended(); }));
  {
    std::lock_guard lock(first.mutex);
    REQUIRE(first.ended);
    CHECK(first.ended->code == DriverErrorCode::rejected);
    CHECK_THAT(first.ended->message, Catch::Contains("another client"));
  }
  CHECK_FALSE(a->open());
  CHECK_FALSE(a->write("lost"));
  REQUIRE(b->write("\r"));
  CHECK(eventually([&] { return second.shows("login: "); }));
  io.run(b->close());
}

TEST_CASE("a wrong password gets no console, and the BMC keeps no session for it",
          "[ipmi][sol][console]") {
  SimBmc bmc("127.0.88.3");
  auto& [fleet, io, client] = bmc;
  Screen screen;
  auto opened = io.run(SolConsole::open(
      client, params_for("127.0.88.3", fleet.port(0), {17}, "wrong"), screen.events()));
  REQUIRE(std::holds_alternative<DriverError>(opened));
  CHECK(std::get<DriverError>(opened).code == DriverErrorCode::auth_failed);
  CHECK(fleet.state(0).console()["active"] == false);
}

TEST_CASE("a console whose BMC goes silent ends with a timeout", "[ipmi][sol][console]") {
  SimBmc bmc("127.0.88.4");
  auto& [fleet, io, client] = bmc;
  Screen screen;
  SolTransferOptions transfer;
  transfer.retry_interval = 100ms;
  transfer.retries = 3;
  auto opened = io.run(SolConsole::open(client, params_for("127.0.88.4", fleet.port(0), {17}),
                                        screen.events(), transfer));
  REQUIRE(std::holds_alternative<std::shared_ptr<SolConsole>>(opened));
  auto console = std::get<std::shared_ptr<SolConsole>>(opened);
  auto faults = fleet.state(0).faults();
  faults.no_answer = true;
  fleet.state(0).set_faults(faults);
  REQUIRE(console->write("x"));
  CHECK(eventually([&] { return screen.has_ended(); }));
  std::lock_guard lock(screen.mutex);
  REQUIRE(screen.ended);
  CHECK(screen.ended->code == DriverErrorCode::timeout);
}

TEST_CASE("the IPMI driver opens a node's serial console and the node's keys reach its host",
          "[ipmi][sol][console][driver]") {
  sim::IpmiFleet fleet(fleet_on("127.0.88.6"));
  fleet.start();
  IoThreads io;
  IpmiDriver driver(io.io.get_executor());
  DriverTarget target;
  target.node_id = "node-sol";
  target.node_name = target.node_id;
  std::string why;
  target.endpoint = *parse_endpoint(fleet.endpoint(0), why);
  target.credentials = Credentials{"admin", "password"};
  target.options = {{"cipher_suites", {17}}};
  Screen screen;
  SolConsoleEvents events = screen.events();
  ConsoleOpenReport opened =
      io.run(driver.open_console(target, IpmiDriver::kSystemId,
                                 ConsoleEvents{std::move(events.output), std::move(events.ended)}));
  if (opened.error) FAIL(opened.error->message);
  REQUIRE(opened.console);
  CHECK(opened.protocol == "ipmi-sol");
  CHECK(opened.console->is_open());
  REQUIRE(opened.console->write("ls\r"));
  CHECK(eventually([&] { return fleet.state(0).console()["received"] == "ls\r"; }));
  CHECK(eventually([&] { return screen.shows("ls"); }));
  // A power cycle through the same driver: the console stays and shows the boot.
  const ActionReport cycled =
      io.run(driver.power(target, IpmiDriver::kSystemId, PowerAction::cycle));
  REQUIRE_FALSE(cycled.error);
  CHECK(eventually([&] { return screen.shows("Booting from disk"); }));
  io.run(opened.console->close());
  CHECK_FALSE(opened.console->is_open());
  CHECK(eventually([&] { return fleet.state(0).console()["active"] == false; }));

  // Wrong credentials: no console, auth_failed, as for any other call.
  target.credentials = Credentials{"admin", "nope"};
  ConsoleOpenReport refused = io.run(driver.open_console(target, IpmiDriver::kSystemId, {}));
  REQUIRE(refused.error);
  CHECK(refused.error->code == DriverErrorCode::auth_failed);
  CHECK_FALSE(refused.console);
  io.run(driver.shutdown());
}

namespace {

// The host side of ipmi_sim's serial port: a TCP server ipmi_sim connects to when the console is
// activated. It prints a line, then upper-cases whatever it receives back.
class TcpHost {
 public:
  explicit TcpHost(const std::string& address) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    ::inet_pton(AF_INET, address.c_str(), &addr.sin_addr);
    REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    socklen_t length = sizeof addr;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &length);
    port_ = ntohs(addr.sin_port);
    REQUIRE(::listen(listener_, 1) == 0);
    thread_ = std::thread([this] { run(); });
  }
  ~TcpHost() {
    stop_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    if (peer_ >= 0) ::shutdown(peer_, SHUT_RDWR);
    thread_.join();
    ::close(listener_);
    if (peer_ >= 0) ::close(peer_);
  }
  unsigned short port() const { return port_; }
  void print(const std::string& text) {
    std::lock_guard lock(mutex_);
    if (peer_ >= 0) (void)!::send(peer_, text.data(), text.size(), MSG_NOSIGNAL);
  }
  bool connected() {
    std::lock_guard lock(mutex_);
    return peer_ >= 0;
  }
  std::string received() {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  void run() {
    const int peer = ::accept(listener_, nullptr, nullptr);
    if (peer < 0) return;
    {
      std::lock_guard lock(mutex_);
      peer_ = peer;
    }
    char buffer[256];
    while (!stop_) {
      const auto n = ::recv(peer, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      std::string upper(buffer, static_cast<std::size_t>(n));
      for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      std::lock_guard lock(mutex_);
      received_.append(buffer, static_cast<std::size_t>(n));
      (void)!::send(peer, upper.data(), upper.size(), MSG_NOSIGNAL);
    }
  }

  int listener_ = -1, peer_ = -1;
  unsigned short port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::string received_;
  std::thread thread_;
};

}  // namespace

TEST_CASE("the console against ipmi_sim's Serial-over-LAN, its host a TCP peer",
          "[ipmi][sol][console][ipmi_sim]") {
  if (auto why = test::IpmiSim::unavailable()) {
    WARN("skipped: " << *why);
    return;
  }
  TcpHost host("127.0.88.5");
  test::IpmiSim bmc("127.0.88.5", 0,
                    {"sol \"tcp:127.0.88.5:" + std::to_string(host.port()) + "\" 115200"});
  IoThreads io;
  LanClient client(io.io.get_executor(), quick());
  Screen screen;
  auto console = open_console(io, client, params_for("127.0.88.5", bmc.port(), {3}), screen);
  // ipmi_sim connects to the host's port when the payload is activated.
  REQUIRE(eventually([&] { return host.connected(); }));
  host.print("Debian GNU/Linux 12 gpu-node ttyS0\r\n");
  CHECK(eventually([&] { return screen.shows("Debian GNU/Linux 12 gpu-node ttyS0"); }));
  REQUIRE(console->write("uptime\r"));
  CHECK(eventually([&] { return host.received().find("uptime\r") != std::string::npos; }));
  CHECK(eventually([&] { return screen.shows("UPTIME"); }));
  io.run(console->close());
  CHECK_FALSE(screen.has_ended());
}

}  // namespace sol_console_test

// The serial console hub over the real IPMI driver, a simulated BMC and PostgreSQL: viewers of one
// node share one BMC console (the simulator sees one activation), one may type, the others read;
// the host's output reaches every viewer and the console log, byte for byte as the simulated host
// printed it (its own record); sessions and audit entries are written however a viewer leaves;
// the last one out releases the BMC's console; a BMC that ends the console ends every viewer.
#include "inventory/console/serial_console_hub.hpp"

#include <catch2/catch.hpp>
#include <mutex>
#include <thread>

#include "bmc/ipmi/ipmi_driver.hpp"
#include "bmc/ipmi/sol_console.hpp"
#include "sim/ipmi/fleet.hpp"
#include "tests/bmc/http/io_threads.hpp"
#include "tests/inventory/db/store_fixture.hpp"
#include "tests/support/eventually.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace serial_console_hub_test {

using namespace ironhold;
using namespace std::chrono_literals;
using nlohmann::json;
using test::eventually;
using test::IoThreads;

namespace {

// What one viewer saw.
struct Screen {
  std::mutex mutex;
  std::string text;
  std::optional<std::string> ended;

  ConsoleViewer viewer(const std::string& principal, bool writer) {
    ConsoleViewer v;
    v.principal = principal;
    v.wants_writer = writer;
    v.output = [this](std::string_view bytes) {
      std::lock_guard lock(mutex);
      text.append(bytes);
    };
    v.ended = [this](const std::string& why) {
      std::lock_guard lock(mutex);
      ended = why;
    };
    return v;
  }
  bool shows(const std::string& needle) {
    std::lock_guard lock(mutex);
    return text.find(needle) != std::string::npos;
  }
  bool has_ended() {
    std::lock_guard lock(mutex);
    return ended.has_value();
  }
};

struct Fixture : test::StoreFixture {
  explicit Fixture(const std::string& address) : fleet(fleet_options(address)) {
    fleet.start();
    node = nodes
               .create(parse_node_spec(
                   {{"name", "gpu-sol"},
                    {"driver", "ipmi"},
                    {"endpoint", fleet.endpoint(0)},
                    {"options", {{"cipher_suites", {17}}}},
                    {"credentials", {{"username", "admin"}, {"password", "password"}}}}))
               .id;
  }
  static sim::IpmiFleetOptions fleet_options(const std::string& address) {
    sim::IpmiFleetOptions o;
    o.listen = address + ":0";
    o.cycle_delay = 300ms;
    return o;
  }
  db::SerialConsoleTarget target() { return *consoles.target(node); }
  std::string logged() {
    std::string out;
    for (const auto& c : consoles.log(node, 0, std::nullopt, 1000)) out += c.data;
    return out;
  }
  json audit_of(const std::string& action) {
    return json::parse(database.execute(
        "SELECT coalesce(json_agg(json_build_object('actor', actor, 'details', details) "
        "ORDER BY id), '[]') FROM audit_log WHERE action = '" +
        action + "'"));
  }

  sim::IpmiFleet fleet;
  std::string node;
  db::SerialConsoleStore consoles{db, box};
  db::AuditStore audit{db};
  boost::asio::thread_pool pool{2};
  IoThreads io;
  bmc::ipmi::IpmiDriver driver{io.io.get_executor()};
  SerialConsoleHub hub{io.io.get_executor(), {{"ipmi", &driver}}, consoles, audit, pool};
};

}  // namespace

TEST_CASE("viewers share one console: one types, all read, and the log keeps what the host printed",
          "[console][hub]") {
  Fixture f("127.0.88.7");
  Screen alice_screen, bob_screen;
  auto alice = f.io.run(f.hub.attach(f.target(), alice_screen.viewer("alice", true)));
  auto bob = f.io.run(f.hub.attach(f.target(), bob_screen.viewer("bob", true)));
  CHECK(alice->writer());
  CHECK_FALSE(bob->writer());  // somebody types already
  CHECK(f.hub.open_consoles() == 1);
  // The BMC's own view: one session, one active console, for both viewers.
  CHECK(f.fleet.state(0).sessions().size() == 1);
  CHECK(f.fleet.state(0).console()["active"] == true);

  CHECK_FALSE(bob->write("rm -rf /\r"));
  REQUIRE(alice->write("hello\r"));
  CHECK(eventually([&] { return f.fleet.state(0).console()["received"] == "hello\r"; }));
  CHECK(eventually([&] { return bob_screen.shows("hello") && alice_screen.shows("hello"); }));

  // A power cycle: both see the boot, and the log keeps it as the host printed it.
  f.fleet.state(0).set_power("off");
  f.fleet.state(0).set_power("on");
  CHECK(eventually([&] { return bob_screen.shows("sim-node-0 login: "); }));
  CHECK(eventually([&] {
    const std::string printed = f.fleet.state(0).console()["history"];
    const auto boot = printed.find("Ironhold simulated firmware");
    return boot != std::string::npos && f.logged().find(printed.substr(boot)) != std::string::npos;
  }));

  f.io.run(bob->detach());
  CHECK(f.hub.open_consoles() == 1);  // alice still watches
  CHECK(f.fleet.state(0).console()["active"] == true);
  f.io.run(alice->detach());
  CHECK(f.hub.open_consoles() == 0);
  CHECK(eventually([&] { return f.fleet.state(0).console()["active"] == false; }));

  CHECK(eventually([&] {
    const auto sessions = f.consoles.sessions(f.node, 10);
    return sessions.size() == 2 && sessions[0].closed_at && sessions[1].closed_at;
  }));
  const auto sessions = f.consoles.sessions(f.node, 10);
  for (const auto& s : sessions) {
    CHECK(s.protocol == "ipmi-sol");
    CHECK(s.end_reason == "closed by the viewer");
    if (s.principal == "alice") {
      CHECK(s.writer);
      CHECK(s.bytes_in == 6);
    } else {
      CHECK_FALSE(s.writer);
      CHECK(s.bytes_in == 0);
      CHECK(s.bytes_out > 0);
    }
  }
  CHECK(eventually([&] { return f.audit_of("serial_console.close").size() == 2; }));
  const json opened = f.audit_of("serial_console.open");
  REQUIRE(opened.size() == 2);
  // Written off the console's path, so in either order.
  for (const auto& o : opened) CHECK(o["details"]["writer"] == (o["actor"] == "alice"));
  const json closed = f.audit_of("serial_console.close");
  for (const auto& c : closed) CHECK(c["details"]["duration_seconds"].get<double>() >= 0);
}

TEST_CASE("a console the BMC gives to another client ends for every viewer", "[console][hub]") {
  Fixture f("127.0.88.8");
  Screen screen;
  auto viewer = f.io.run(f.hub.attach(f.target(), screen.viewer("carol", true)));
  // Another client (an operator's ipmitool) takes the console over.
  bmc::ipmi::LanClient other(f.io.io.get_executor());
  bmc::ipmi::SessionParams p;
  p.bmc =
      boost::asio::ip::udp::endpoint(boost::asio::ip::make_address("127.0.88.8"), f.fleet.port(0));
  p.user = "admin";
  p.password = "password";
  auto taken = f.io.run(bmc::ipmi::SolConsole::open(other, p, {}));
  REQUIRE(std::holds_alternative<std::shared_ptr<bmc::ipmi::SolConsole>>(taken));
  CHECK(eventually([&] { return screen.has_ended(); }));
  CHECK(f.hub.open_consoles() == 0);
  CHECK_FALSE(viewer->write("x"));
  CHECK(eventually([&] {
    const auto sessions = f.consoles.sessions(f.node, 10);
    return sessions.size() == 1 && sessions[0].end_reason &&
           sessions[0].end_reason->find("another client") != std::string::npos;
  }));
  f.io.run(std::get<std::shared_ptr<bmc::ipmi::SolConsole>>(taken)->close());
}

TEST_CASE("a console that cannot be opened says why and leaves nothing behind", "[console][hub]") {
  Fixture f("127.0.88.9");
  auto target = f.target();
  target.target.credentials = Credentials{"admin", "wrong"};
  Screen screen;
  try {
    f.io.run(f.hub.attach(target, screen.viewer("dave", true)));
    FAIL("attached with a wrong password");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::unavailable);
    CHECK_THAT(std::string(e.what()), Catch::Contains("gpu-sol"));
  }
  CHECK(f.hub.open_consoles() == 0);
  CHECK(f.consoles.sessions(f.node, 10).empty());
  auto cloud = f.target();
  cloud.cloud = true;
  CHECK_THROWS_AS(f.io.run(f.hub.attach(cloud, screen.viewer("dave", true))), Error);
}

}  // namespace serial_console_hub_test

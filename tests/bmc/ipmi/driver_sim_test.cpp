// The IPMI driver against Ironhold's own simulated BMC (sim/ipmi), which ipmitool and FreeIPMI
// verify on their side (tests/sim/ipmi_tools_test.cpp): cipher suite 17 (SHA-256, which ipmi_sim
// lacks), session reuse, keep-alive and re-opening, privilege limits, every action as the BMC
// counted it, sensors and SEL as the BMC holds them, and the faults: loss, silence, lockout.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <memory>
#include <thread>

#include "bmc/ipmi/ipmi_driver.hpp"
#include "sim/ipmi/fleet.hpp"
#include "tests/bmc/http/io_threads.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace driver_sim_test {

using namespace ironhold;
using namespace ironhold::bmc::ipmi;
using nlohmann::json;
using test::IoThreads;
using namespace std::chrono_literals;

namespace {

sim::IpmiFleetOptions fleet_options(const std::string& address) {
  sim::IpmiFleetOptions o;
  o.listen = address + ":0";
  o.cycle_delay = 300ms;
  return o;
}

DriverTarget target_for(sim::IpmiFleet& fleet, std::vector<int> suites = {17},
                        std::string user = "admin", std::string password = "password",
                        std::string privilege = "admin") {
  DriverTarget t;
  t.node_id = "node-" + fleet.host(0) + "-" + user;
  t.node_name = t.node_id;
  std::string why;
  t.endpoint = *parse_endpoint(fleet.endpoint(0), why);
  t.credentials = Credentials{std::move(user), std::move(password)};
  t.options = {{"cipher_suites", suites}, {"privilege", privilege}};
  return t;
}

IpmiDriverOptions quick() {
  IpmiDriverOptions o;
  o.lan.first_timeout = 150ms;
  o.lan.max_timeout = 300ms;
  o.lan.attempts = 4;
  return o;
}

template <class F>
void wait_for(F condition) {
  for (int i = 0; i < 100 && !condition(); ++i) std::this_thread::sleep_for(50ms);
}

StatusReport poll(IoThreads& io, IpmiDriver& driver, const DriverTarget& t) {
  StatusReport r = io.run(driver.poll_status(t));
  if (r.error) FAIL(r.error->message);
  return r;
}

}  // namespace

TEST_CASE("suite 17: sessions to the simulator open once, carry every action, and close",
          "[ipmi][driver][sim]") {
  sim::IpmiFleet fleet(fleet_options("127.0.86.1"));
  fleet.start();
  IoThreads io;
  IpmiDriver driver(io.io.get_executor(), quick());
  const DriverTarget t = target_for(fleet, {17});

  CHECK(poll(io, driver, t).systems.at(0).power_state ==
        (fleet.state(0).power_on() ? PowerState::on : PowerState::off));
  for (int i = 0; i < 5; ++i) poll(io, driver, t);
  CHECK(driver.client().stats().sessions_opened == 1);
  CHECK(fleet.state(0).sessions().size() == 1);

  const struct {
    PowerAction action;
    const char* counter;
    PowerState after;
  } steps[] = {{PowerAction::on, "power_on", PowerState::on},
               {PowerAction::reset, "hard_reset", PowerState::on},
               {PowerAction::cycle, "power_cycle", PowerState::on},
               {PowerAction::soft_off, "soft_off", PowerState::off},
               {PowerAction::on, "power_on", PowerState::on},
               {PowerAction::off, "power_off", PowerState::off}};
  for (const auto& step : steps) {
    INFO(to_string(step.action));
    const unsigned before = json(fleet.describe(0))["counters"][step.counter].get<unsigned>();
    const ActionReport done = io.run(driver.power(t, "", step.action));
    if (done.error) FAIL(done.error->message);
    CHECK(fleet.describe(0)["counters"][step.counter].get<unsigned>() == before + 1);
    wait_for([&] { return fleet.state(0).power_on() == (step.after == PowerState::on); });
    CHECK(poll(io, driver, t).systems.at(0).power_state == step.after);
  }

  const ActionReport boot =
      io.run(driver.set_boot(t, "", BootRequest{BootDevice::pxe, true, BootMode::uefi}));
  REQUIRE_FALSE(boot.error);
  json flags = fleet.state(0).boot_flags();
  CHECK(flags["device"] == "pxe");
  CHECK(flags["persistent"] == true);
  CHECK(flags["efi"] == true);
  CHECK(flags["valid"] == true);
  // Without a mode the BMC's BIOS/EFI choice stays.
  REQUIRE_FALSE(io.run(driver.set_boot(t, "", BootRequest{BootDevice::disk, false, {}})).error);
  flags = fleet.state(0).boot_flags();
  CHECK(flags["device"] == "disk");
  CHECK(flags["persistent"] == false);
  CHECK(flags["efi"] == true);

  REQUIRE_FALSE(io.run(driver.identify(t, "", true)).error);
  CHECK(fleet.describe(0)["counters"]["identify"] == 1);

  // Still the one session; the driver closes it at shutdown.
  CHECK(driver.client().stats().sessions_opened == 1);
  io.run(driver.shutdown());
  CHECK(fleet.state(0).sessions().empty());
  CHECK(fleet.describe(0)["counters"]["sessions_closed"] == 1);
}

TEST_CASE("sensors and SEL entries as the simulated BMC holds them", "[ipmi][driver][sim]") {
  sim::IpmiFleet fleet(fleet_options("127.0.86.2"));
  fleet.start();
  IoThreads io;
  IpmiDriver driver(io.io.get_executor(), quick());
  const DriverTarget t = target_for(fleet, {17, 3});

  // One sensor past a threshold, so that the states compare too.
  const json sensors_before = fleet.state(0).sensors();
  std::string hot;
  for (const auto& s : sensors_before)
    if (s["type"] == "threshold" && s["unit"] == "degrees C") hot = s["name"];
  REQUIRE_FALSE(hot.empty());
  fleet.state(0).set_sensor(hot, 200);

  const SensorReport report = io.run(driver.poll_sensors(t));
  if (report.error) FAIL(report.error->message);
  std::map<std::string, SensorReading> ours;
  for (const auto& s : report.systems.at(0).sensors) ours[s.name] = s;
  const json theirs = fleet.state(0).sensors();
  CHECK(ours.size() == theirs.size());
  for (const auto& s : theirs) {
    INFO(s.dump());
    REQUIRE(ours.count(s["name"]) == 1);
    const SensorReading& r = ours[s["name"]];
    if (s["type"] == "discrete") continue;
    REQUIRE(r.value.has_value());
    CHECK(std::fabs(*r.value - s["value"].get<double>()) < 1e-6);
    const std::string state = s["state"];
    const Health expected = state == "ok"             ? Health::ok
                            : state == "non-critical" ? Health::warning
                                                      : Health::critical;
    CHECK(r.status == expected);
  }
  CHECK(ours.at(hot).status == Health::critical);
  CHECK(io.run(driver.poll_status(t)).systems.at(0).health == Health::critical);

  // Every SEL entry once; then only what is added.
  const std::size_t first = report.systems.at(0).events.size();
  CHECK(first == fleet.state(0).sel().size());
  const SensorReport nothing = io.run(driver.poll_sensors(t));
  REQUIRE_FALSE(nothing.error);
  CHECK(nothing.systems.at(0).events.empty());
  const json added = fleet.state(0).add_sel(hot, 9, false);  // upper critical going high
  const SensorReport next = io.run(driver.poll_sensors(t));
  REQUIRE_FALSE(next.error);
  REQUIRE(next.systems.at(0).events.size() == 1);
  CHECK(next.systems.at(0).events[0].details["asserted"] == true);
  io.run(driver.shutdown());
}

TEST_CASE("FRU reads shrink when the BMC refuses a chunk that large", "[ipmi][driver][sim]") {
  sim::IpmiFleet fleet(fleet_options("127.0.86.6"));
  fleet.start();
  IoThreads io;
  IpmiDriverOptions options = quick();
  options.limits.first_chunk = 128;  // the simulator answers reads over 32 bytes with 0xCA
  IpmiDriver driver(io.io.get_executor(), options);
  const InspectionReport report = io.run(driver.inspect(target_for(fleet, {17})));
  if (report.error) FAIL(report.error->message);
  const json fru = fleet.describe(0)["fru"];
  CHECK(report.systems.at(0).identity.serial == fru["product_serial"].get<std::string>());
  CHECK(report.systems.at(0).identity.asset_tag == fru["asset_tag"].get<std::string>());
  io.run(driver.shutdown());
}

TEST_CASE("a BMC key (K_G): the right one opens sessions, another is auth_failed",
          "[ipmi][driver][sim]") {
  auto options = fleet_options("127.0.86.7");
  options.bmc_key = "00112233445566778899aabbccddeeff01020304";
  sim::IpmiFleet fleet(options);
  fleet.start();
  IoThreads io;
  IpmiDriver driver(io.io.get_executor(), quick());
  DriverTarget t = target_for(fleet, {17, 3});
  t.kg = options.bmc_key;
  poll(io, driver, t);

  DriverTarget wrong = target_for(fleet, {3}, "operator", "operator", "operator");
  wrong.kg = "ffffffffffffffffffffffffffffffffffffffff";
  const StatusReport refused = io.run(driver.poll_status(wrong));
  REQUIRE(refused.error);
  CHECK(refused.error->code == DriverErrorCode::auth_failed);
  CHECK_THAT(refused.error->message, Catch::Contains("K_G"));
  // Without the key the password stands in for it, and the BMC's keys differ too.
  DriverTarget none = target_for(fleet, {17}, "operator", "operator", "operator");
  none.node_id += "-nokey";
  const StatusReport keyless = io.run(driver.poll_status(none));
  REQUIRE(keyless.error);
  CHECK(keyless.error->code == DriverErrorCode::auth_failed);
  io.run(driver.shutdown());
}

TEST_CASE("a BMC on IPv6 loopback is reached over the client's IPv6 socket",
          "[ipmi][driver][sim]") {
  sim::IpmiFleetOptions options;
  options.listen = "[::1]:0";
  std::unique_ptr<sim::IpmiFleet> fleet;
  try {
    fleet = std::make_unique<sim::IpmiFleet>(options);
  } catch (const std::exception& e) {
    WARN("skipped: no IPv6 loopback here (" << e.what() << ")");
    return;
  }
  fleet->start();
  IoThreads io;
  IpmiDriver driver(io.io.get_executor(), quick());
  const DriverTarget t = target_for(*fleet, {17});
  CHECK(t.endpoint.host == "::1");
  poll(io, driver, t);
  const SensorReport sensors = io.run(driver.poll_sensors(t));
  REQUIRE_FALSE(sensors.error);
  CHECK(sensors.systems.at(0).sensors.size() == fleet->state(0).sensors().size());
  io.run(driver.shutdown());
  CHECK(fleet->state(0).sessions().empty());
}

TEST_CASE("privilege limits: the read-only user reads, the operator acts, neither as admin",
          "[ipmi][driver][sim]") {
  sim::IpmiFleet fleet(fleet_options("127.0.86.3"));
  fleet.start();
  IoThreads io;
  IpmiDriver driver(io.io.get_executor(), quick());

  const StatusReport as_admin =
      io.run(driver.poll_status(target_for(fleet, {17}, "readonly", "readonly", "admin")));
  REQUIRE(as_admin.error);
  CHECK(as_admin.error->code == DriverErrorCode::auth_failed);
  CHECK_THAT(as_admin.error->message, Catch::Contains("readonly"));

  const DriverTarget op = target_for(fleet, {17}, "operator", "operator", "operator");
  poll(io, driver, op);
  const ActionReport on = io.run(driver.power(op, "", PowerAction::on));
  if (on.error) FAIL(on.error->message);
  CHECK(fleet.describe(0)["counters"]["power_on"] == 1);
  // A BMC cold reset needs administrator: refused by the BMC, and said so.
  const ActionReport reset = io.run(driver.reset_controller(op));
  REQUIRE(reset.error);
  CHECK_THAT(reset.error->message, Catch::Contains("insufficient privilege"));
  io.run(driver.shutdown());
}

TEST_CASE("loss is retransmitted, silence is a timeout, a lockout is auth_failed",
          "[ipmi][driver][sim]") {
  sim::IpmiFleet fleet(fleet_options("127.0.86.4"));
  fleet.start();
  IoThreads io;
  // At 30 % loss a request goes unanswered 4 times in a row with p = 0.3^4 ≈ 0.8 %, and the ten
  // polls with their session set-up make some 18 exchanges: 8 tries bring a spurious failure of
  // the test down to about 0.1 %.
  IpmiDriverOptions patient = quick();
  patient.lan.attempts = 8;
  IpmiDriver driver(io.io.get_executor(), patient);
  const DriverTarget t = target_for(fleet, {17});

  sim::ipmi::Faults lossy;
  lossy.loss = 0.3;
  fleet.state(0).set_faults(lossy);
  for (int i = 0; i < 10; ++i) poll(io, driver, t);
  CHECK(driver.client().stats().retransmissions > 0);

  sim::ipmi::Faults silent;
  silent.no_answer = true;
  fleet.state(0).set_faults(silent);
  const StatusReport quiet = io.run(driver.poll_status(t));
  REQUIRE(quiet.error);
  CHECK(quiet.error->code == DriverErrorCode::timeout);

  // Answering again: the session is opened anew (the old one went unanswered).
  fleet.state(0).set_faults({});
  poll(io, driver, t);

  IpmiDriver fresh(io.io.get_executor(), quick());
  sim::ipmi::Faults locked;
  locked.lockout = true;
  fleet.state(0).set_faults(locked);
  const StatusReport refused =
      io.run(fresh.poll_status(target_for(fleet, {17}, "operator", "operator", "operator")));
  REQUIRE(refused.error);
  CHECK(refused.error->code == DriverErrorCode::auth_failed);
  fleet.state(0).set_faults({});
  io.run(driver.shutdown());
  io.run(fresh.shutdown());
}

TEST_CASE("an idle session is kept alive, one the BMC expired is opened again",
          "[ipmi][driver][sim]") {
  auto options = fleet_options("127.0.86.5");
  options.session_timeout = 2s;
  sim::IpmiFleet fleet(options);
  fleet.start();
  IoThreads io;
  IpmiDriverOptions driver_options = quick();
  driver_options.lan.keepalive_after = 500ms;
  IpmiDriver driver(io.io.get_executor(), driver_options);
  const DriverTarget t = target_for(fleet, {17});

  poll(io, driver, t);
  std::this_thread::sleep_for(3500ms);  // longer than the BMC's idle timeout
  poll(io, driver, t);
  CHECK(driver.client().stats().sessions_opened == 1);  // the keep-alives held it

  fleet.state(0).expire_sessions();  // the BMC forgets it (a restart, a timeout)
  poll(io, driver, t);
  CHECK(driver.client().stats().sessions_opened == 2);
  CHECK(fleet.state(0).sessions().size() == 1);  // and nothing leaked on its side
  io.run(driver.shutdown());
}

}  // namespace driver_sim_test

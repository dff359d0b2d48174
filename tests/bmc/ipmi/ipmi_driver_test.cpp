// The IPMI driver against OpenIPMI's ipmi_sim, each answer compared with what ipmitool (a client
// nobody here wrote) reports for the same simulator at the same moment: power state and every
// chassis control, the boot device, every sensor's converted value, status and thresholds, the
// SEL, both FRUs, the firmware revision and the GUID. Then the credentials backoff. Each test
// case has its own 127.0.84.x address (ctest runs them in parallel).
#include "bmc/ipmi/ipmi_driver.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "inventory/util/process.hpp"
#include "tests/bmc/http/io_threads.hpp"
#include "tests/support/server/bmc_peers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ipmi_driver_test {

using namespace ironhold;
using namespace ironhold::bmc::ipmi;
using test::IoThreads;
using test::IpmiSim;

namespace {

const std::filesystem::path kIpmitool = "/usr/bin/ipmitool";

std::optional<std::string> peers_missing() {
  if (auto why = IpmiSim::unavailable()) return why;
  if (!std::filesystem::exists(kIpmitool)) return "ipmitool is not installed";
  return std::nullopt;
}

#define SKIP_WITHOUT_PEERS()        \
  if (auto why = peers_missing()) { \
    WARN("skipped: " << *why);      \
    return;                         \
  }

DriverTarget target_for(const IpmiSim& sim, std::string password = "password") {
  DriverTarget t;
  t.node_id = "node-" + sim.address();
  t.node_name = "ipmi-" + sim.address();
  std::string why;
  t.endpoint = *parse_endpoint("ipmi://" + sim.address() + ":" + std::to_string(sim.port()), why);
  t.credentials = Credentials{"admin", std::move(password)};
  t.options = {{"cipher_suites", {17, 3}}};
  return t;
}

std::string ipmitool(const IpmiSim& sim, std::vector<std::string> command) {
  std::vector<std::string> args{
      "-I", "lanplus", "-H", sim.address(), "-p", std::to_string(sim.port()),
      "-U", "admin",   "-P", "password",    "-C", "3"};
  args.insert(args.end(), command.begin(), command.end());
  util::ProcessOptions options;
  options.timeout = std::chrono::seconds(30);
  const auto result = util::run_process(kIpmitool, args, options);
  INFO("ipmitool " << command.at(0) << ": " << result.status_text() << " " << result.err);
  REQUIRE(result.ok());
  return result.out;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, sep)) out.push_back(trim(field));
  return out;
}

// "Product Serial        : SN9555" lines of `fru print` / `mc info` / `mc guid`.
std::map<std::string, std::string> colon_fields(const std::string& text) {
  std::map<std::string, std::string> out;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(" : ");
    if (colon != std::string::npos) out[trim(line.substr(0, colon))] = trim(line.substr(colon + 3));
  }
  return out;
}

PowerState ipmitool_power(const IpmiSim& sim) {
  const std::string out = ipmitool(sim, {"chassis", "power", "status"});
  if (out.find("is on") != std::string::npos) return PowerState::on;
  if (out.find("is off") != std::string::npos) return PowerState::off;
  FAIL("unexpected: " << out);
  return PowerState::unknown;
}

PowerState driver_power(IoThreads& io, IpmiDriver& driver, const DriverTarget& t) {
  const StatusReport r = io.run(driver.poll_status(t));
  if (r.error) FAIL(r.error->message);
  REQUIRE(r.systems.size() == 1);
  return r.systems[0].power_state;
}

std::string chassis_log(const IpmiSim& sim) {
  std::ifstream in(sim.state_dir() / "chassis" / "log");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// ipmi_sim applies a power change a moment after it answers (its chassis script runs).
template <class F>
void wait_for(F condition) {
  for (int i = 0; i < 100 && !condition(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

}  // namespace

TEST_CASE("power state and every chassis control agree with ipmitool", "[ipmi][driver][ipmi_sim]") {
  SKIP_WITHOUT_PEERS();
  IpmiSim sim("127.0.84.1");
  IoThreads io;
  IpmiDriver driver(io.io.get_executor());
  const DriverTarget t = target_for(sim);

  CHECK(driver_power(io, driver, t) == ipmitool_power(sim));
  const struct {
    PowerAction action;
    const char* logged;  // what the simulator's chassis script records
    PowerState after;
  } steps[] = {
      {PowerAction::on, "set power 1", PowerState::on},
      {PowerAction::reset, "set reset", PowerState::on},
      {PowerAction::soft_off, "set shutdown 1", PowerState::off},
      {PowerAction::on, "set power 1", PowerState::on},
      {PowerAction::off, "set power 0", PowerState::off},
  };
  for (const auto& step : steps) {
    INFO("action " << to_string(step.action));
    const std::size_t log_before = chassis_log(sim).size();
    const ActionReport done = io.run(driver.power(t, "", step.action));
    if (done.error) FAIL(done.error->message);
    CHECK_FALSE(done.detail.empty());
    wait_for([&] { return chassis_log(sim).size() > log_before; });
    CHECK(chassis_log(sim).substr(log_before).find(step.logged) != std::string::npos);
    wait_for([&] { return ipmitool_power(sim) == step.after; });
    CHECK(ipmitool_power(sim) == step.after);
    CHECK(driver_power(io, driver, t) == ipmitool_power(sim));
  }

  // A cycle of a server that is off turns it on; of one that is on, goes off and back on.
  const ActionReport cycle_off = io.run(driver.power(t, "", PowerAction::cycle));
  REQUIRE_FALSE(cycle_off.error);
  CHECK_THAT(cycle_off.detail, Catch::Contains("power up"));
  wait_for([&] { return ipmitool_power(sim) == PowerState::on; });
  CHECK(driver_power(io, driver, t) == PowerState::on);
  const ActionReport cycle_on = io.run(driver.power(t, "", PowerAction::cycle));
  REQUIRE_FALSE(cycle_on.error);
  CHECK_THAT(cycle_on.detail, Catch::Contains("power cycle"));
  io.run(driver.shutdown());
}

TEST_CASE("the boot device the driver sets is the one ipmitool reads", "[ipmi][driver][ipmi_sim]") {
  SKIP_WITHOUT_PEERS();
  IpmiSim sim("127.0.84.2");
  IoThreads io;
  IpmiDriver driver(io.io.get_executor());
  const DriverTarget t = target_for(sim);
  const struct {
    BootDevice device;
    bool persistent;
    std::optional<BootMode> mode;
    const char* selector;
    const char* stored;  // the simulator's chassis script's name for it
  } cases[] = {
      {BootDevice::pxe, false, BootMode::uefi, "Force PXE", "pxe"},
      {BootDevice::cd, true, std::nullopt, "Force Boot from CD/DVD", "cdrom"},
      {BootDevice::bios, false, BootMode::legacy, "Force Boot into BIOS Setup", "bios"},
      {BootDevice::disk, true, BootMode::legacy, "Force Boot from default Hard-Drive", "default"},
  };
  for (const auto& c : cases) {
    INFO("device " << to_string(c.device));
    const ActionReport done =
        io.run(driver.set_boot(t, "", BootRequest{c.device, c.persistent, c.mode}));
    if (done.error) FAIL(done.error->message);
    const std::string out = ipmitool(sim, {"chassis", "bootparam", "get", "5"});
    CHECK_THAT(out, Catch::Contains(c.selector));
    std::ifstream state(sim.state_dir() / "chassis" / "boot");
    std::string stored;
    state >> stored;
    CHECK(stored == c.stored);
    // ipmi_sim keeps only the device, not the valid/persistent/EFI flags (ipmitool shows
    // "Boot Flag Invalid" whatever was set); Ironhold's own simulator is checked for those.
  }
  // Identify reaches the chassis too.
  const ActionReport lit = io.run(driver.identify(t, "", true));
  REQUIRE_FALSE(lit.error);
  std::ifstream identify(sim.state_dir() / "chassis" / "identify");
  std::string seconds;
  identify >> seconds;
  CHECK(seconds == "255");
  io.run(driver.shutdown());
}

TEST_CASE("every sensor's value, status and thresholds agree with ipmitool sensor list",
          "[ipmi][driver][ipmi_sim]") {
  SKIP_WITHOUT_PEERS();
  IpmiSim sim("127.0.84.3");
  IoThreads io;
  IpmiDriver driver(io.io.get_executor());
  const DriverTarget t = target_for(sim);

  // Drive one sensor over its upper critical threshold first (the simulator re-reads its raw
  // values every 2 s), so that statuses other than "ok" are compared too.
  { std::ofstream(sim.state_dir() / "sensors" / "cpu_temp") << 100; }
  wait_for([&] { return ipmitool(sim, {"sensor", "list"}).find("| cr ") != std::string::npos; });

  const SensorReport report = io.run(driver.poll_sensors(t));
  if (report.error) FAIL(report.error->message);
  REQUIRE(report.systems.size() == 1);
  std::map<std::string, SensorReading> ours;
  for (const auto& s : report.systems[0].sensors) ours[s.name] = s;

  const std::string listed = ipmitool(sim, {"sensor", "list"});
  std::stringstream lines(listed);
  std::string line;
  int compared = 0;
  bool saw_critical = false;
  while (std::getline(lines, line)) {
    const auto f = split(line, '|');
    if (f.size() < 10) continue;
    INFO("ipmitool: " << line);
    REQUIRE(ours.count(f[0]) == 1);
    const SensorReading& s = ours[f[0]];
    if (f[2] == "discrete") {
      CHECK(s.kind == "other");
      ++compared;
      continue;
    }
    REQUIRE(s.value.has_value());
    CHECK(std::fabs(*s.value - std::stod(f[1])) < 0.001);
    const std::string& status = f[3];
    const Health expected = status == "ok"                       ? Health::ok
                            : (status == "nc")                   ? Health::warning
                            : (status == "cr" || status == "nr") ? Health::critical
                                                                 : Health::unknown;
    CHECK(s.status == expected);
    saw_critical = saw_critical || expected == Health::critical;
    // lnr lcr lnc unc ucr unr
    const char* keys[] = {"lower_fatal",   "lower_critical", "lower_caution",
                          "upper_caution", "upper_critical", "upper_fatal"};
    for (int i = 0; i < 6; ++i) {
      const std::string& v = f[4 + static_cast<std::size_t>(i)];
      if (v == "na") {
        CHECK_FALSE(s.thresholds.contains(keys[i]));
      } else {
        REQUIRE(s.thresholds.contains(keys[i]));
        CHECK(std::fabs(s.thresholds[keys[i]].get<double>() - std::stod(v)) < 0.001);
      }
    }
    ++compared;
  }
  CHECK(compared == static_cast<int>(ours.size()));
  CHECK(compared >= 5);
  CHECK(saw_critical);
  CHECK(ours.at("CPU Temp").kind == "temperature");
  CHECK(ours.at("CPU Temp").unit == "Cel");
  CHECK(ours.at("FAN1").kind == "fan");
  CHECK(ours.at("12V").unit == "V");

  // The next status poll carries the sensors' health.
  const StatusReport status = io.run(driver.poll_status(t));
  REQUIRE_FALSE(status.error);
  CHECK(status.systems.at(0).health == Health::critical);
  io.run(driver.shutdown());
}

TEST_CASE("SEL entries become events, each reported once, as ipmitool sel list shows them",
          "[ipmi][driver][ipmi_sim]") {
  SKIP_WITHOUT_PEERS();
  IpmiSim sim("127.0.84.4");
  IoThreads io;
  IpmiDriver driver(io.io.get_executor());
  const DriverTarget t = target_for(sim);

  const SensorReport first = io.run(driver.poll_sensors(t));
  if (first.error) FAIL(first.error->message);
  const auto& events = first.systems.at(0).events;

  const std::string listed = ipmitool(sim, {"sel", "list"});
  std::stringstream lines(listed);
  std::string line;
  std::map<int, std::vector<std::string>> theirs;
  while (std::getline(lines, line)) {
    const auto f = split(line, '|');
    if (f.size() >= 5) theirs[std::stoi(f[0], nullptr, 16)] = f;
  }
  REQUIRE(theirs.size() == events.size());
  for (const auto& e : events) {
    const int id = e.details.at("record_id").get<int>();
    INFO("record " << id << ": " << e.message);
    REQUIRE(theirs.count(id) == 1);
    const auto& f = theirs[id];
    if (f[3].rfind("OEM", 0) == 0) continue;  // ipmitool prints OEM bytes; ours are the same record
    CHECK(e.details.at("asserted").get<bool>() == (f.back() == "Asserted"));
    // ipmitool's sensor type name ("Temperature #0x01", "Power Supply #0x05")
    CHECK_THAT(f[3], Catch::StartsWith(e.details.at("sensor_type").get<std::string>()));
  }

  // Nothing new: nothing reported again.
  const SensorReport second = io.run(driver.poll_sensors(t));
  REQUIRE_FALSE(second.error);
  CHECK(second.systems.at(0).events.empty());

  // A threshold crossing adds entries; only those are reported.
  { std::ofstream(sim.state_dir() / "sensors" / "cpu_temp") << 100; }
  wait_for([&] { return ipmitool(sim, {"sel", "list"}).size() > listed.size(); });
  const SensorReport third = io.run(driver.poll_sensors(t));
  REQUIRE_FALSE(third.error);
  CHECK_FALSE(third.systems.at(0).events.empty());
  for (const auto& e : third.systems.at(0).events)
    CHECK(theirs.count(e.details.at("record_id").get<int>()) == 0);
  io.run(driver.shutdown());
}

TEST_CASE("inspection: FRU identity and components, firmware and GUID as ipmitool prints them",
          "[ipmi][driver][ipmi_sim]") {
  SKIP_WITHOUT_PEERS();
  IpmiSim sim("127.0.84.5");
  IoThreads io;
  IpmiDriver driver(io.io.get_executor());
  const DriverTarget t = target_for(sim);
  const InspectionReport report = io.run(driver.inspect(t));
  if (report.error) FAIL(report.error->message);
  REQUIRE(report.systems.size() == 1);
  const SystemInventory& system = report.systems[0];

  const auto fru0 = colon_fields(ipmitool(sim, {"fru", "print", "0"}));
  CHECK(system.identity.manufacturer == fru0.at("Product Manufacturer"));
  CHECK(system.identity.model == fru0.at("Product Name"));
  CHECK(system.identity.serial == fru0.at("Product Serial"));
  CHECK(system.identity.part_number == fru0.at("Product Part Number"));
  CHECK(system.identity.asset_tag == fru0.at("Product Asset Tag"));

  std::map<std::string, Component> parts;
  for (const auto& c : system.components) parts[c.slot] = c;
  REQUIRE(parts.count("fru0/chassis") == 1);
  CHECK(parts["fru0/chassis"].serial == fru0.at("Chassis Serial"));
  CHECK(parts["fru0/chassis"].part_number == fru0.at("Chassis Part Number"));
  REQUIRE(parts.count("fru0/board") == 1);
  CHECK(parts["fru0/board"].serial == fru0.at("Board Serial"));
  CHECK(parts["fru0/board"].manufacturer == fru0.at("Board Mfg"));
  CHECK(parts["fru0/board"].model == fru0.at("Board Product"));

  const auto fru1 = colon_fields(ipmitool(sim, {"fru", "print", "1"}));
  REQUIRE(parts.count("fru1/product") == 1);
  CHECK(parts["fru1/product"].kind == ComponentKind::psu);
  CHECK(parts["fru1/product"].model == fru1.at("Product Name"));
  CHECK(parts["fru1/product"].serial == fru1.at("Product Serial"));
  CHECK(parts["fru1/board"].part_number == fru1.at("Board Part Number"));

  const auto mc = colon_fields(ipmitool(sim, {"mc", "info"}));
  CHECK(report.manager_firmware == mc.at("Firmware Revision"));
  REQUIRE_FALSE(system.firmware.empty());
  CHECK(system.firmware[0].version == mc.at("Firmware Revision"));
  CHECK(parts.at("bmc").details.at("ipmi_version") == mc.at("IPMI Version"));

  const auto guid = colon_fields(ipmitool(sim, {"mc", "guid"}));
  CHECK(system.identity.uuid == guid.at("System GUID"));

  CHECK(system.sensors.size() >= 5);
  CHECK(system.events.size() >= 1);
  io.run(driver.shutdown());
}

TEST_CASE("rejected credentials are not tried again until the backoff ends or they change",
          "[ipmi][driver][ipmi_sim]") {
  SKIP_WITHOUT_PEERS();
  IpmiSim sim("127.0.84.6");
  IoThreads io;
  auto clock = std::make_shared<std::atomic<std::int64_t>>(0);
  IpmiDriverOptions options;
  options.now = [clock] {
    return AuthBackoff::Clock::time_point(std::chrono::seconds(clock->load()));
  };
  IpmiDriver driver(io.io.get_executor(), options);

  const DriverTarget wrong = target_for(sim, "not-the-password");
  const StatusReport first = io.run(driver.poll_status(wrong));
  REQUIRE(first.error);
  CHECK(first.error->code == DriverErrorCode::auth_failed);
  const auto requests = driver.client().stats().requests;

  const StatusReport barred = io.run(driver.poll_status(wrong));
  REQUIRE(barred.error);
  CHECK(barred.error->code == DriverErrorCode::auth_failed);
  CHECK_THAT(barred.error->message, Catch::Contains("not tried again"));
  CHECK(driver.client().stats().requests == requests);  // nothing went to the BMC

  *clock += 16 * 60;  // past the first 15 minutes: tried again (and rejected again)
  io.run(driver.poll_status(wrong));
  CHECK(driver.client().stats().requests == requests + 1);

  // New credentials are tried at once.
  const StatusReport fixed = io.run(driver.poll_status(target_for(sim)));
  if (fixed.error) FAIL(fixed.error->message);
  CHECK(fixed.systems.at(0).power_state == PowerState::off);
  io.run(driver.shutdown());
}

}  // namespace ipmi_driver_test

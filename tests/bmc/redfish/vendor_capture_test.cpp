// The Redfish driver against real vendors' BMCs: captures of Dell iDRAC 9, HPE iLO 5, Lenovo
// XClarity, Supermicro, Gigabyte (AMI MegaRAC) services (tests/data/vendor-captures, each with
// its source and licence), served by the simulator over HTTPS. The expected values are read here
// from the captures' own documents, never from the driver's code.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "bmc/redfish/redfish_driver.hpp"
#include "tests/bmc/http/io_threads.hpp"
#include "tests/bmc/redfish/driver_test_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace vendor_capture_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace ironhold::bmc::redfish;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path capture_tree(const std::string& name) {
  return fs::path(__FILE__).parent_path().parent_path().parent_path() / "data" / "vendor-captures" /
         name / "tree";
}

std::string trimmed(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// A capture read as files: documents by URL, and the members of a collection whether the
// capture holds the collection document or only its members' folders.
struct Capture {
  fs::path dir;

  json doc(const std::string& url) const {
    if (url.rfind("/redfish/v1", 0) != 0) return nullptr;
    std::string rest = trimmed(url).substr(std::string("/redfish/v1").size());
    while (!rest.empty() && rest.front() == '/') rest.erase(0, 1);
    std::ifstream in(dir / rest / "index.json");
    if (!in) return nullptr;
    return json::parse(in);
  }
  std::string link(const json& document, const char* property) const {
    if (!document.is_object() || !document.contains(property)) return "";
    const json& l = document[property];
    return l.is_object() ? trimmed(l.value("@odata.id", "")) : "";
  }
  // A link of the document at `url`; where the capture lacks that document, the sub-folder of
  // that name (what the simulator links in its place).
  std::string link_at(const std::string& url, const char* property) const {
    if (url.empty()) return "";
    const json d = doc(url);
    if (d.is_object()) return link(d, property);
    std::string rest = trimmed(url).substr(std::string("/redfish/v1").size());
    while (!rest.empty() && rest.front() == '/') rest.erase(0, 1);
    return fs::is_directory(dir / rest / property) ? trimmed(url) + "/" + property : "";
  }
  std::vector<std::string> members(const std::string& url) const {
    std::vector<std::string> out;
    if (url.rfind("/redfish/v1", 0) != 0) return out;
    const json collection = doc(url);
    if (collection.is_object() && collection.contains("Members")) {
      for (const auto& m : collection["Members"]) out.push_back(trimmed(m.value("@odata.id", "")));
      return out;
    }
    std::string rest = trimmed(url).substr(std::string("/redfish/v1").size());
    while (!rest.empty() && rest.front() == '/') rest.erase(0, 1);
    std::set<std::string> names;
    if (fs::is_directory(dir / rest))
      for (const auto& entry : fs::directory_iterator(dir / rest))
        if (entry.is_directory()) names.insert(entry.path().filename().string());
    for (const auto& n : names) out.push_back(trimmed(url) + "/" + n);
    return out;
  }
  std::string first_system() const {
    std::string systems = link(doc("/redfish/v1"), "Systems");
    if (systems.empty()) systems = "/redfish/v1/Systems";
    return members(systems).at(0);
  }
};

std::optional<std::string> text(const json& document, const char* key) {
  if (!document.is_object() || !document.contains(key) || !document[key].is_string())
    return std::nullopt;
  return document[key].get<std::string>();
}

bool absent(const json& d) {
  return d.is_object() && d.contains("Status") && d["Status"].is_object() &&
         d["Status"].value("State", "") == "Absent";
}

// What the System draws from the wall, read from the capture's own files by the rule of
// docs/cost.md: a chassis Sensor of ReadingType Power in PhysicalContext Chassis, else
// PowerControl[0].PowerConsumedWatts, else the power supplies' PowerInputWatts; with where it
// came from.
std::optional<std::pair<double, std::string>> capture_input_power(const Capture& capture,
                                                                  const json& system) {
  std::vector<std::string> chassis;
  if (system.contains("Links") && system["Links"].contains("Chassis"))
    for (const auto& l : system["Links"]["Chassis"])
      chassis.push_back(trimmed(l.value("@odata.id", "")));
  for (const auto& c : chassis)
    for (const auto& sensor : capture.members(capture.link_at(c, "Sensors"))) {
      const json d = capture.doc(sensor);
      if (d.is_object() && d.value("ReadingType", "") == "Power" &&
          d.value("PhysicalContext", "") == "Chassis" && d.contains("Reading") &&
          d["Reading"].is_number())
        return std::make_pair(d["Reading"].get<double>(), std::string("Sensor"));
    }
  for (const auto& c : chassis) {
    const json power = capture.doc(capture.link_at(c, "Power"));
    if (power.is_object() && power.contains("PowerControl") && power["PowerControl"].is_array() &&
        !power["PowerControl"].empty() &&
        power["PowerControl"][0].value("PowerConsumedWatts", json()).is_number())
      return std::make_pair(power["PowerControl"][0]["PowerConsumedWatts"].get<double>(),
                            std::string("PowerControl"));
  }
  return std::nullopt;
}

PowerState expected_power(const json& system) {
  const auto p = text(system, "PowerState");
  if (p == "On") return PowerState::on;
  if (p == "Off") return PowerState::off;
  return PowerState::unknown;
}

std::string why(const InspectionReport& r) {
  return r.error ? r.error->message : std::string();
}

void check_inspection(const std::string& name) {
  INFO("capture " << name);
  const Capture capture{capture_tree(name)};
  REQUIRE(fs::exists(capture.dir / "index.json"));
  const std::string system_path = capture.first_system();
  const json system = capture.doc(system_path);
  REQUIRE(system.is_object());

  SimulatedBmc bmc(capture.dir);
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const InspectionReport report = io.run(driver.inspect(bmc.target()));
  INFO(why(report));
  REQUIRE(report.ok());
  REQUIRE_FALSE(report.systems.empty());
  const SystemInventory& got = report.systems[0];

  // What it draws from the wall (the simulator moves power readings by up to 3 % and 1 W).
  if (const auto want = capture_input_power(capture, system)) {
    INFO("input power " << want->first << " W from " << want->second);
    REQUIRE(got.input_power);
    CHECK(got.input_power->source.rfind(want->second, 0) == 0);
    CHECK(got.input_power->watts == Approx(want->first).margin(want->first * 0.035 + 1.5));
  }

  // Identity and state, as the System document says.
  CHECK(got.system_id ==
        text(system, "Id").value_or(system_path.substr(system_path.rfind('/') + 1)));
  CHECK(got.identity.manufacturer == text(system, "Manufacturer"));
  CHECK(got.identity.model == text(system, "Model"));
  CHECK(got.identity.sku == text(system, "SKU"));
  CHECK(got.identity.bios_version == text(system, "BiosVersion"));
  if (const auto serial = text(system, "SerialNumber"))
    CHECK(got.identity.serial == sim::redfish::unique_serial(*serial, 0));
  CHECK(got.status.power_state == expected_power(system));

  // CPUs and GPUs: the System's Processors that the capture holds and that are present.
  int cpus = 0, gpus = 0;
  if (const std::string processors = capture.link(system, "Processors"); !processors.empty())
    for (const auto& path : capture.members(processors)) {
      const json p = capture.doc(path);
      if (!p.is_object() || absent(p)) continue;
      cpus += text(p, "ProcessorType") == "CPU";
      gpus += text(p, "ProcessorType") == "GPU";
    }
  CHECK(got.summary.cpu_count == cpus);
  CHECK(got.summary.gpu_count == gpus);
  if (system.contains("MemorySummary") &&
      system["MemorySummary"].value("TotalSystemMemoryGiB", json()).is_number())
    CHECK(got.summary.memory_gib ==
          Approx(system["MemorySummary"]["TotalSystemMemoryGiB"].get<double>()));

  // Every firmware inventory member the capture holds, with its version.
  const std::string update = capture.link(capture.doc("/redfish/v1"), "UpdateService");
  const std::string inventory =
      update.empty() ? "" : capture.link(capture.doc(update), "FirmwareInventory");
  int firmware_items = 0;
  if (!inventory.empty())
    for (const auto& path : capture.members(inventory)) {
      const json item = capture.doc(path);
      if (!item.is_object() || !text(item, "Version")) continue;
      ++firmware_items;
      const std::string id = text(item, "Id").value_or(path.substr(path.rfind('/') + 1));
      INFO("firmware " << id);
      bool found = false;
      for (const auto& f : got.firmware)
        found = found || (f.component == id && f.version == *text(item, "Version"));
      CHECK(found);
    }

  // Temperatures of the old Thermal resource: every reading the capture holds is there, within
  // what the simulator's drift moves a reading (3 % and one unit).
  auto has_temperature_near = [&got](double expected) {
    for (const auto& s : got.sensors)
      if (s.value && s.unit == "Cel" &&
          std::abs(*s.value - expected) <= std::abs(expected) * 0.03 + 1.0)
        return true;
    return false;
  };
  int thermal_readings = 0;
  for (const auto& chassis :
       capture.members(capture.link(capture.doc("/redfish/v1"), "Chassis").empty()
                           ? "/redfish/v1/Chassis"
                           : capture.link(capture.doc("/redfish/v1"), "Chassis"))) {
    const json thermal = capture.doc(capture.link(capture.doc(chassis), "Thermal"));
    if (!thermal.is_object()) continue;
    for (const auto& t : thermal.value("Temperatures", json::array())) {
      if (absent(t) || !t.value("ReadingCelsius", json()).is_number()) continue;
      ++thermal_readings;
      INFO("temperature " << t.value("Name", ""));
      CHECK(has_temperature_near(t["ReadingCelsius"].get<double>()));
    }
  }
  // Memory modules the capture holds and says are present; log entries it holds, by message.
  int modules = 0;
  if (const std::string memory = capture.link(system, "Memory"); !memory.empty())
    for (const auto& path : capture.members(memory)) {
      const json m = capture.doc(path);
      modules += m.is_object() && !absent(m);
    }
  int memory_components = 0;
  for (const auto& c : got.components) memory_components += c.kind == ComponentKind::memory;
  CHECK(memory_components == modules);
  std::set<std::string> messages;
  for (const auto& e : got.events) messages.insert(e.message);
  int entries = 0;
  for (const auto& owner : {system_path, capture.members("/redfish/v1/Managers").empty()
                                             ? std::string()
                                             : capture.members("/redfish/v1/Managers")[0]}) {
    const std::string services = capture.link_at(owner, "LogServices");
    for (const auto& service : capture.members(services)) {
      const std::string entries_path = capture.link_at(service, "Entries");
      const json collection = capture.doc(entries_path);
      // Entries expanded inline in the collection (iLO, AMI), else their own documents.
      std::vector<json> held;
      if (collection.is_object())
        for (const auto& m : collection.value("Members", json::array()))
          if (m.contains("Message")) held.push_back(m);
      if (held.empty())
        for (const auto& path : capture.members(entries_path))
          if (json e = capture.doc(path); e.is_object()) held.push_back(std::move(e));
      for (const auto& e : held) {
        if (!e.value("Message", json()).is_string() || e["Message"].get<std::string>().empty())
          continue;
        ++entries;
        INFO("log entry " << e.value("@odata.id", ""));
        CHECK(messages.count(e["Message"].get<std::string>()) == 1);
      }
    }
  }
  WARN(name << ": " << entries << " log entries in the capture; " << name << ": "
            << got.components.size() << " components, " << got.firmware.size()
            << " firmware items (" << firmware_items << " in the capture), " << got.sensors.size()
            << " sensors (" << thermal_readings << " Thermal temperatures), " << got.events.size()
            << " log entries");
}

// The ResetType values the capture's System allows: on the action, else in its ActionInfo.
std::set<std::string> allowed_resets(const Capture& capture, const json& system) {
  std::set<std::string> out;
  const json action =
      system.value("Actions", json::object()).value("#ComputerSystem.Reset", json());
  if (!action.is_object()) return out;
  for (const auto& v : action.value("ResetType@Redfish.AllowableValues", json::array()))
    out.insert(v.get<std::string>());
  if (!out.empty() || !action.value("@Redfish.ActionInfo", json()).is_string()) return out;
  for (const auto& p :
       capture.doc(action["@Redfish.ActionInfo"]).value("Parameters", json::array()))
    if (p.value("Name", "") == "ResetType")
      for (const auto& v : p.value("AllowableValues", json::array()))
        out.insert(v.get<std::string>());
  return out;
}

// Off and on again through the driver, with only ResetType values the BMC lists.
void check_power(const std::string& name) {
  INFO("capture " << name);
  const Capture capture{capture_tree(name)};
  const std::string system_path = capture.first_system();
  const std::set<std::string> allowed = allowed_resets(capture, capture.doc(system_path));
  REQUIRE_FALSE(allowed.empty());
  SimulatedBmc bmc(capture.dir);
  IoThreads io;
  RedfishDriverOptions options;
  options.actions.power_poll_interval = std::chrono::milliseconds(50);
  options.actions.power_off_timeout = std::chrono::milliseconds(5000);
  RedfishDriver driver(io.io.get_executor(), options);
  if (bmc.state().power_state(system_path) != "On") {
    const ActionReport on = io.run(driver.power(bmc.target(), "", PowerAction::on));
    INFO((on.error ? on.error->message : on.detail));
    REQUIRE(on.ok());
    REQUIRE(settles_in(bmc.state(), system_path, "On"));
  }
  const ActionReport off = io.run(driver.power(bmc.target(), "", PowerAction::off));
  INFO((off.error ? off.error->message : off.detail));
  REQUIRE(off.ok());
  CHECK(settles_in(bmc.state(), system_path, "Off"));
  const ActionReport on = io.run(driver.power(bmc.target(), "", PowerAction::on));
  INFO((on.error ? on.error->message : on.detail));
  REQUIRE(on.ok());
  CHECK(settles_in(bmc.state(), system_path, "On"));
  for (const auto& [type, count] : bmc.state().counters().resets) {
    INFO("ResetType " << type);
    CHECK(allowed.count(type) == 1);
  }
}

}  // namespace

TEST_CASE("power actions on vendor captures use only the ResetType values each BMC lists",
          "[redfish][vendor]") {
  for (const char* name :
       {"dell-idrac9", "hpe-ilo5-dl325", "lenovo-xcc", "supermicro", "gigabyte-ami"})
    check_power(name);
}

TEST_CASE("the driver reads a Dell iDRAC 9 capture", "[redfish][vendor]") {
  check_inspection("dell-idrac9");
}

TEST_CASE("the driver reads an HPE iLO 5 capture (ProLiant DL325 Gen10 Plus)",
          "[redfish][vendor]") {
  check_inspection("hpe-ilo5-dl325");
}

TEST_CASE("the driver reads a Lenovo XClarity capture", "[redfish][vendor]") {
  check_inspection("lenovo-xcc");
}

TEST_CASE("the driver reads a Supermicro capture", "[redfish][vendor]") {
  check_inspection("supermicro");
}

TEST_CASE("the driver reads a Gigabyte (AMI MegaRAC) capture", "[redfish][vendor]") {
  check_inspection("gigabyte-ami");
}

}  // namespace vendor_capture_test

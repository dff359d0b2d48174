// The normalizer on crawled DMTF mockups. Expected values are read here from the mockup files
// with the definitions of issue 3, never copied from the normalizer.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "bmc/redfish/crawler.hpp"
#include "bmc/redfish/normalizer.hpp"
#include "tests/bmc/redfish/redfish_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace normalizer_mockup_test {

using namespace ironhold;
using namespace ironhold::bmc::redfish;
using namespace ironhold::bmc::redfish::testing;
using nlohmann::json;

namespace {

std::string id_of_link(const json& link) {
  std::string path = link.is_object() ? link.value("@odata.id", "") : "";
  while (!path.empty() && path.back() == '/') path.pop_back();
  return path;
}

std::string link(const json& document, const std::string& property) {
  return document.contains(property) ? id_of_link(document[property]) : "";
}

// An array property of a document, empty when the document or the property is missing.
json array_of(const json& document, const std::string& key) {
  if (!document.is_object() || !document.contains(key) || !document[key].is_array())
    return json::array();
  return document[key];
}

bool absent(const json& document) {
  return document.contains("Status") && document["Status"].value("State", "") == "Absent";
}

struct Crawled {
  std::filesystem::path root;
  CrawlResult result;
  std::string system;
};

std::optional<Crawled> crawl_mockup(const std::string& name, CrawlScope s) {
  auto root = mockup(name);
  if (root.empty()) return std::nullopt;
  CrawlOptions options;
  options.scope = s;
  CrawlResult result = crawl_service(serve_mockup(root), options);
  REQUIRE_FALSE(result.error);
  REQUIRE_FALSE(result.system_paths.empty());
  std::string system = result.system_paths.front();
  return Crawled{root, std::move(result), system};
}

// The System's chassis as issue 3 and our crawler define them: Links.Chassis plus the chassis
// whose Links.ComputerSystems name the System.
std::vector<std::string> expected_chassis(const std::filesystem::path& root,
                                          const std::string& system) {
  std::vector<std::string> chassis;
  json document = mockup_doc(root, system);
  if (document.contains("Links") && document["Links"].contains("Chassis"))
    for (const auto& l : document["Links"]["Chassis"]) chassis.push_back(id_of_link(l));
  for (const auto& path : mockup_members(root, "/redfish/v1/Chassis")) {
    json c = mockup_doc(root, path);
    if (!c.contains("Links") || !c["Links"].contains("ComputerSystems")) continue;
    for (const auto& l : c["Links"]["ComputerSystems"])
      if (id_of_link(l) == system &&
          std::find(chassis.begin(), chassis.end(), path) == chassis.end())
        chassis.push_back(path);
  }
  return chassis;
}

int count_kind(const SystemInventory& inventory, ComponentKind kind) {
  return static_cast<int>(std::count_if(inventory.components.begin(), inventory.components.end(),
                                        [kind](const Component& c) { return c.kind == kind; }));
}

}  // namespace

TEST_CASE("hardware summary of the mockups follows issue 3's definitions",
          "[redfish][normalizer]") {
  for (std::string name : {"public-rackmount1", "public-cxl"}) {
    auto crawled = crawl_mockup(name, CrawlScope::inventory);
    if (!crawled) {
      WARN("redfish mockups not found; skipped");
      return;
    }
    INFO(name);
    const auto& root = crawled->root;
    json system = mockup_doc(root, crawled->system);
    SystemInventory inventory = normalize_inventory(crawled->result.graph, crawled->system);

    int cpus = 0, gpus = 0;
    std::optional<std::string> cpu_model, gpu_model;
    for (const auto& path : mockup_members(root, link(system, "Processors"))) {
      json processor = mockup_doc(root, path);
      if (absent(processor)) continue;
      std::string type = processor.value("ProcessorType", "");
      if (type == "CPU") {
        ++cpus;
        if (!cpu_model && processor.contains("Model")) cpu_model = processor["Model"];
      } else if (type == "GPU") {
        ++gpus;
        if (!gpu_model && processor.contains("Model")) gpu_model = processor["Model"];
      }
    }
    CHECK(inventory.summary.cpu_count == cpus);
    CHECK(inventory.summary.cpu_model == cpu_model);
    CHECK(inventory.summary.gpu_count == gpus);
    CHECK(inventory.summary.gpu_model == gpu_model);
    CHECK(count_kind(inventory, ComponentKind::cpu) == cpus);
    CHECK(count_kind(inventory, ComponentKind::gpu) == gpus);

    std::optional<double> memory;
    if (system.contains("MemorySummary") &&
        system["MemorySummary"].contains("TotalSystemMemoryGiB"))
      memory = system["MemorySummary"]["TotalSystemMemoryGiB"].get<double>();
    CHECK(inventory.summary.memory_gib == memory);

    // Drives: Storage -> Drives when the System has Storage, else SimpleStorage's devices.
    int drives = 0;
    double bytes = 0;
    if (system.contains("Storage")) {
      for (const auto& storage : mockup_members(root, link(system, "Storage")))
        for (const auto& d : mockup_doc(root, storage).value("Drives", json::array())) {
          json drive = mockup_doc(root, id_of_link(d));
          if (absent(drive)) continue;
          ++drives;
          bytes += drive.value("CapacityBytes", 0.0);
        }
    } else if (system.contains("SimpleStorage")) {
      for (const auto& controller : mockup_members(root, link(system, "SimpleStorage")))
        for (const auto& device : mockup_doc(root, controller).value("Devices", json::array())) {
          if (absent(device)) continue;
          ++drives;
          bytes += device.value("CapacityBytes", 0.0);
        }
    }
    CHECK(inventory.summary.drive_count == drives);
    CHECK(count_kind(inventory, ComponentKind::drive) == drives);
    if (drives > 0) CHECK(inventory.summary.drive_capacity_gb == Approx(bytes / 1e9));
  }
}

TEST_CASE("public-cxl: the GPU the System links under a chassis counts, the pooled one not",
          "[redfish][normalizer]") {
  auto crawled = crawl_mockup("public-cxl", CrawlScope::inventory);
  if (!crawled) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  const auto& root = crawled->root;
  json system = mockup_doc(root, crawled->system);
  std::vector<std::string> linked_gpus;
  for (const auto& path : mockup_members(root, link(system, "Processors")))
    if (mockup_doc(root, path).value("ProcessorType", "") == "GPU") linked_gpus.push_back(path);
  REQUIRE(linked_gpus.size() == 1);
  REQUIRE(linked_gpus[0].rfind("/redfish/v1/Chassis/", 0) == 0);  // lives under a chassis
  SystemInventory inventory = normalize_inventory(crawled->result.graph, crawled->system);
  CHECK(inventory.summary.gpu_count == 1);
  // The accelerator that is not a CPU or GPU is kind "other" with its ProcessorType.
  for (const auto& c : inventory.components)
    if (c.kind == ComponentKind::other) CHECK(c.details.contains("processor_type"));
}

TEST_CASE("identity, power state and health of the mockup Systems", "[redfish][normalizer]") {
  for (std::string name : {"public-rackmount1", "public-cxl"}) {
    auto crawled = crawl_mockup(name, CrawlScope::inventory);
    if (!crawled) {
      WARN("redfish mockups not found; skipped");
      return;
    }
    INFO(name);
    json system = mockup_doc(crawled->root, crawled->system);
    SystemInventory inventory = normalize_inventory(crawled->result.graph, crawled->system);
    auto text = [&](const char* key) -> std::optional<std::string> {
      if (!system.contains(key)) return std::nullopt;
      return system[key].get<std::string>();
    };
    CHECK(inventory.system_id == system["Id"].get<std::string>());
    CHECK(inventory.identity.manufacturer == text("Manufacturer"));
    CHECK(inventory.identity.model == text("Model"));
    CHECK(inventory.identity.serial == text("SerialNumber"));
    CHECK(inventory.identity.sku == text("SKU"));
    CHECK(inventory.identity.part_number == text("PartNumber"));
    CHECK(inventory.identity.asset_tag == text("AssetTag"));
    CHECK(inventory.identity.uuid == text("UUID"));
    CHECK(inventory.identity.bios_version == text("BiosVersion"));
    CHECK(inventory.status.power_state == power_state_of(system["PowerState"].get<std::string>()));
    std::string rollup =
        system["Status"].value("HealthRollup", system["Status"].value("Health", ""));
    CHECK(to_string(inventory.status.health) == (rollup == "OK"        ? "ok"
                                                 : rollup == "Warning" ? "warning"
                                                                       : "critical"));
  }
}

TEST_CASE("firmware: every FirmwareInventory member plus uncovered BMC and BIOS",
          "[redfish][normalizer]") {
  auto crawled = crawl_mockup("public-rackmount1", CrawlScope::inventory);
  if (!crawled) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  const auto& root = crawled->root;
  SystemInventory inventory = normalize_inventory(crawled->result.graph, crawled->system);
  json collection = mockup_doc(root, "/redfish/v1/UpdateService/FirmwareInventory");
  auto members = mockup_members(root, "/redfish/v1/UpdateService/FirmwareInventory");
  // The mockup's count annotation is wrong; Members is what counts.
  REQUIRE(collection["Members@odata.count"].get<std::size_t>() != members.size());
  std::map<std::string, json> expected;
  for (const auto& path : members) {
    json item = mockup_doc(root, path);
    expected[item["Id"].get<std::string>()] = item;
  }
  std::map<std::string, FirmwareItem> got;
  for (const auto& f : inventory.firmware) got[f.component] = f;
  for (const auto& [id, item] : expected) {
    INFO(id);
    REQUIRE(got.count(id));
    CHECK(got[id].version == item["Version"].get<std::string>());
    CHECK(got[id].name == item["Name"].get<std::string>());
    CHECK(got[id].updateable == item.value("Updateable", false));
  }
  // An item on disk but not in Members is not reported.
  CHECK_FALSE(got.count("AC-RoT0"));
  // The Manager's version and the BIOS are covered by the items with those Ids.
  json manager = mockup_doc(root, "/redfish/v1/Managers/BMC");
  CHECK((expected.count("BMC") || got.count("BMC")));
  CHECK(got["BMC"].version == manager["FirmwareVersion"].get<std::string>());
  CHECK(inventory.firmware.size() == expected.size());
  CHECK(manager_firmware(crawled->result.graph) == manager["FirmwareVersion"].get<std::string>());
}

TEST_CASE("sensor counts per the de-duplication rule, read from the mockups",
          "[redfish][normalizer]") {
  for (std::string name : {"public-rackmount1", "public-cxl"}) {
    auto crawled = crawl_mockup(name, CrawlScope::sensors);
    if (!crawled) {
      WARN("redfish mockups not found; skipped");
      return;
    }
    INFO(name);
    const auto& root = crawled->root;
    std::size_t expected = 0;
    std::set<std::string> expected_sensor_ids;
    for (const auto& chassis_path : expected_chassis(root, crawled->system)) {
      json chassis = mockup_doc(root, chassis_path);
      auto sensors = chassis.contains("Sensors") ? mockup_members(root, link(chassis, "Sensors"))
                                                 : std::vector<std::string>{};
      std::set<std::string> sensor_set(sensors.begin(), sensors.end());
      for (const auto& s : sensors) expected_sensor_ids.insert(mockup_doc(root, s)["Id"]);
      expected += sensors.size();
      bool subsystem_fans = false, subsystem_temps = false;
      if (chassis.contains("ThermalSubsystem")) {
        json thermal = mockup_doc(root, link(chassis, "ThermalSubsystem"));
        for (const auto& fan_path : mockup_members(root, link(thermal, "Fans"))) {
          json fan = mockup_doc(root, fan_path);
          if (!fan.contains("SpeedPercent")) continue;
          subsystem_fans = true;
          if (!sensor_set.count(fan["SpeedPercent"].value("DataSourceUri", ""))) ++expected;
        }
        json metrics = mockup_doc(root, link(thermal, "ThermalMetrics"));
        for (const auto& t : array_of(metrics, "TemperatureReadingsCelsius")) {
          subsystem_temps = true;
          if (!sensor_set.count(t.value("DataSourceUri", ""))) ++expected;
        }
      }
      if (sensors.empty()) {
        json thermal = mockup_doc(root, link(chassis, "Thermal"));
        json power = mockup_doc(root, link(chassis, "Power"));
        if (!subsystem_temps) expected += array_of(thermal, "Temperatures").size();
        if (!subsystem_fans) expected += array_of(thermal, "Fans").size();
        expected += array_of(power, "Voltages").size();
        expected += array_of(power, "PowerControl").size();
      }
    }
    REQUIRE(expected > 0);
    SystemSensors sensors = normalize_sensors(crawled->result.graph, crawled->system);
    CHECK(sensors.sensors.size() == expected);
    std::set<std::string> names;
    for (const auto& s : sensors.sensors) {
      CHECK(names.insert(s.name).second);  // unique per node
      CHECK_FALSE(s.kind.empty());
    }
    for (const auto& id : expected_sensor_ids) CHECK(names.count(id));
  }
}

TEST_CASE("sensor kinds and units of the rackmount1 Sensors", "[redfish][normalizer]") {
  auto crawled = crawl_mockup("public-rackmount1", CrawlScope::sensors);
  if (!crawled) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  SystemSensors sensors = normalize_sensors(crawled->result.graph, crawled->system);
  std::map<std::string, SensorReading> by_name;
  for (const auto& s : sensors.sensors) by_name[s.name] = s;
  for (const auto& path : mockup_members(crawled->root, "/redfish/v1/Chassis/1U/Sensors")) {
    json sensor = mockup_doc(crawled->root, path);
    std::string id = sensor["Id"];
    INFO(id);
    REQUIRE(by_name.count(id));
    SensorReading got = by_name[id];
    if (sensor.contains("Reading") && sensor["Reading"].is_number())
      CHECK(got.value == Approx(sensor["Reading"].get<double>()));
    if (sensor.contains("ReadingUnits"))
      CHECK(got.unit == sensor["ReadingUnits"].get<std::string>());
    std::string units = sensor.value("ReadingUnits", "");
    if (units == "Cel") CHECK(got.kind == "temperature");
    if (sensor.value("ReadingType", "") == "Voltage") CHECK(got.kind == "voltage");
    if (sensor.value("ReadingType", "") == "Power") CHECK(got.kind == "power");
    if (sensor.value("ReadingType", "") == "Current") CHECK(got.kind == "current");
    if (sensor.contains("Thresholds") && sensor["Thresholds"].contains("UpperCritical"))
      CHECK(got.thresholds["upper_critical"] == sensor["Thresholds"]["UpperCritical"]["Reading"]);
  }
  // Fan speeds in percent are fans: CPUFan1 backs ThermalSubsystem/Fans/CPU1.
  CHECK(by_name["CPUFan1"].kind == "fan");
}

TEST_CASE("log entries become events with severity, time and details", "[redfish][normalizer]") {
  auto crawled = crawl_mockup("public-rackmount1", CrawlScope::sensors);
  if (!crawled) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  const auto& root = crawled->root;
  std::map<std::string, json> expected;
  for (const std::string& entries :
       {std::string("/redfish/v1/Systems/437XR1138R2/LogServices/Log1/Entries"),
        std::string("/redfish/v1/Managers/BMC/LogServices/Log/Entries")}) {
    json collection = mockup_doc(root, entries);
    for (const auto& member : collection["Members"]) expected[id_of_link(member)] = member;
  }
  SystemSensors sensors = normalize_sensors(crawled->result.graph, crawled->system);
  REQUIRE(sensors.events.size() == expected.size());
  for (const auto& event : sensors.events) {
    INFO(event.source_id);
    REQUIRE(expected.count(event.source_id));
    const json& entry = expected[event.source_id];
    std::string severity = entry.value("Severity", "OK");
    CHECK(to_string(event.severity) == (severity == "Critical"  ? "critical"
                                        : severity == "Warning" ? "warning"
                                                                : "info"));
    CHECK(event.occurred_at == entry["Created"].get<std::string>());
    CHECK(event.message == entry.value("Message", ""));
    CHECK(event.details["entry_type"] == entry["EntryType"]);
    CHECK(event.details["message_id"] == entry["MessageId"]);
  }
}

TEST_CASE("status normalization on every status scope crawl", "[redfish][normalizer]") {
  auto crawled = crawl_mockup("public-rackmount1", CrawlScope::status);
  if (!crawled) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  json system = mockup_doc(crawled->root, crawled->system);
  SystemStatus status = normalize_status(crawled->result.graph, crawled->system);
  CHECK(status.system_id == system["Id"].get<std::string>());
  CHECK(status.power_state == PowerState::on);
}

}  // namespace normalizer_mockup_test

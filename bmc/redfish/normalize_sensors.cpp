// Sensor readings of a System's chassis. One physical sensor can appear up to three times: as a
// Sensor resource, as a Fan's or ThermalMetrics' reading that points to that Sensor through
// DataSourceUri, and as an element of the deprecated Thermal/Power arrays. The rule, per chassis:
//   1. every member of the chassis' Sensors collection is a reading;
//   2. ThermalSubsystem fans and ThermalMetrics temperatures are readings only when their
//      DataSourceUri does not name a Sensor already read;
//   3. the old Thermal/Power arrays are read only when the chassis has no Sensors: their
//      elements have no link to the new Sensors (different names, no DataSourceUri), so they
//      cannot be matched one by one, and a service that has Sensors lists everything there.
//      Old Thermal fans (temperatures) are skipped when step 2 already gave fans (temperatures).
// Names are unique per node: the Sensor's Id (or the element's Name); on a clash the chassis Id
// is prefixed.
#include <array>
#include <set>

#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/normalize_links.hpp"
#include "bmc/redfish/normalize_parts.hpp"
#include "bmc/redfish/normalizer.hpp"

namespace ironhold::bmc::redfish {

namespace {

using nlohmann::json;

struct KindRule {
  std::string_view reading_type;
  std::string_view units;  // ReadingUnits that imply the kind when ReadingType is absent
  std::string_view kind;
  std::string_view default_unit;
};

constexpr std::array<KindRule, 9> kind_rules = {{
    {"Temperature", "Cel", "temperature", "Cel"},
    {"Rotational", "RPM", "fan", "RPM"},
    {"Power", "W", "power", "W"},
    {"Voltage", "V", "voltage", "V"},
    {"Current", "A", "current", "A"},
    {"EnergykWh", "kW.h", "energy", "kW.h"},
    {"EnergyWh", "W.h", "energy", "W.h"},
    {"EnergyJoules", "J", "energy", "J"},
    {"Humidity", "", "humidity", "%"},
}};

// Old-style threshold properties -> the model's names.
constexpr std::array<std::pair<std::string_view, const char*>, 6> old_thresholds = {{
    {"UpperThresholdNonCritical", "upper_caution"},
    {"UpperThresholdCritical", "upper_critical"},
    {"UpperThresholdFatal", "upper_fatal"},
    {"LowerThresholdNonCritical", "lower_caution"},
    {"LowerThresholdCritical", "lower_critical"},
    {"LowerThresholdFatal", "lower_fatal"},
}};
constexpr std::array<std::pair<std::string_view, const char*>, 6> new_thresholds = {{
    {"UpperCaution", "upper_caution"},
    {"UpperCritical", "upper_critical"},
    {"UpperFatal", "upper_fatal"},
    {"LowerCaution", "lower_caution"},
    {"LowerCritical", "lower_critical"},
    {"LowerFatal", "lower_fatal"},
}};

class Readings {
 public:
  explicit Readings(const ResourceGraph& graph) : graph_(graph) {}

  void add(SensorReading reading, const std::string& chassis_id) {
    if (!names_.insert(reading.name).second) {
      std::string base = chassis_id + "/" + reading.name;
      reading.name = base;
      for (int n = 2; !names_.insert(reading.name).second; ++n)
        reading.name = base + "#" + std::to_string(n);
    }
    readings_.push_back(std::move(reading));
  }

  // A temperature of a GPU: its PhysicalContext says so, or it relates to a GPU Processor.
  bool is_gpu(const json& sensor) const {
    if (read_string(&sensor, "PhysicalContext") == "GPU") return true;
    for (const auto& path : read_links(&sensor, "RelatedItem")) {
      const json* item = graph_.find(path);
      if (item && read_string(item, "ProcessorType") == "GPU") return true;
    }
    return false;
  }

  std::string temperature_kind(const json& sensor) const {
    return is_gpu(sensor) ? "gpu_temperature" : "temperature";
  }

  std::vector<SensorReading> take() { return std::move(readings_); }
  const ResourceGraph& graph() const { return graph_; }

 private:
  const ResourceGraph& graph_;
  std::set<std::string> names_;
  std::vector<SensorReading> readings_;
};

Health status_health(const json& element) {
  const json* status = read_object(&element, "Status");
  return status ? health_of(*status) : Health::unknown;
}

// A Sensor resource (Sensor schema).
SensorReading from_sensor(const Readings& readings, const json& sensor, const std::string& path,
                          bool fan_source) {
  SensorReading reading;
  reading.name = resource_id(sensor, path);
  reading.value = read_number(&sensor, "Reading");
  std::optional<std::string> type = read_string(&sensor, "ReadingType");
  std::optional<std::string> units = read_string(&sensor, "ReadingUnits");
  reading.kind = "other";
  std::string_view default_unit;
  for (const auto& rule : kind_rules) {
    if (type ? *type == rule.reading_type : (!rule.units.empty() && units == rule.units)) {
      reading.kind = std::string(rule.kind);
      default_unit = rule.default_unit;
      break;
    }
  }
  // Fan speeds are often given in percent: a fan's DataSourceUri or SpeedRPM tells them apart
  // from other percentages (battery health, utilisation).
  if (reading.kind == "other" && (type == "Percent" || units == "%") &&
      (fan_source || property(sensor, "SpeedRPM") ||
       read_string(&sensor, "PhysicalContext") == "Fan")) {
    reading.kind = "fan";
  }
  if (reading.kind == "temperature") reading.kind = readings.temperature_kind(sensor);
  reading.unit = units.value_or(type == "Percent" ? "%" : std::string(default_unit));
  reading.status = status_health(sensor);
  const json* thresholds = read_object(&sensor, "Thresholds");
  for (const auto& [name, key] : new_thresholds)
    if (auto value = read_number(read_object(thresholds, name), "Reading"))
      reading.thresholds[key] = *value;
  return reading;
}

// An element of an old Thermal/Power array.
SensorReading from_element(const json& element, std::string kind, std::string_view value_key,
                           std::string unit, const std::string& fallback_name) {
  SensorReading reading;
  reading.name = read_string(&element, "Name").value_or(fallback_name);
  reading.kind = std::move(kind);
  reading.value = read_number(&element, value_key);
  reading.unit = std::move(unit);
  reading.status = status_health(element);
  for (const auto& [name, key] : old_thresholds)
    if (auto value = read_number(&element, name)) reading.thresholds[key] = *value;
  return reading;
}

// Each object element of an array property, with its index.
template <class Visit>
void each_element(const json* document, std::string_view array_name, Visit visit) {
  const json* elements = read_array(document, array_name);
  if (!elements) return;
  for (std::size_t i = 0; i < elements->size(); ++i)
    if ((*elements)[i].is_object()) visit((*elements)[i], i);
}

// What a chassis's newer resources already report, so the old Thermal/Power arrays add only the
// rest: AMI MegaRAC services (Gigabyte) have a Sensors collection with a few power readings and
// keep every temperature in Thermal.
struct ChassisCounts {
  bool fans = false;
  bool temperatures = false;
  bool voltages = false;
  bool power = false;

  void cover(std::string_view kind) {
    if (kind == "temperature" || kind == "gpu_temperature") temperatures = true;
    if (kind == "fan") fans = true;
    if (kind == "voltage") voltages = true;
    if (kind == "power") power = true;
  }
};

ChassisCounts add_subsystem_readings(Readings& readings, const json& chassis,
                                     const std::string& chassis_id,
                                     const std::set<std::string>& sensor_paths) {
  ChassisCounts counts;
  const ResourceGraph& graph = readings.graph();
  std::string thermal = link_of(chassis, "ThermalSubsystem");
  const json* thermal_document = thermal.empty() ? nullptr : graph.find(thermal);
  if (!thermal_document) return counts;
  std::string fans = link_of(*thermal_document, "Fans");
  for (const auto& path : fans.empty() ? std::vector<std::string>{} : graph.members(fans)) {
    const json* fan = graph.find(path);
    const json* speed = read_object(fan, "SpeedPercent");
    if (!fan || !speed) continue;
    counts.fans = true;
    std::optional<std::string> source = read_string(speed, "DataSourceUri");
    if (source && sensor_paths.count(canonical_path(*source))) continue;
    SensorReading reading;
    reading.name = resource_id(*fan, path);
    reading.kind = "fan";
    // Decided once and moved in: assigning "%" over "RPM" in place made GCC 12 (-O2, -O3) warn
    // falsely of a memcpy past the maximum object size (libstdc++ PR 109299).
    const std::optional<double> rpm = read_number(speed, "SpeedRPM");
    reading.value = rpm ? rpm : read_number(speed, "Reading");
    reading.unit = std::string(rpm ? "RPM" : "%");
    reading.status = status_health(*fan);
    readings.add(std::move(reading), chassis_id);
  }
  std::string metrics = link_of(*thermal_document, "ThermalMetrics");
  const json* metrics_document = metrics.empty() ? nullptr : graph.find(metrics);
  each_element(
      metrics_document, "TemperatureReadingsCelsius", [&](const json& element, std::size_t i) {
        counts.temperatures = true;
        std::optional<std::string> source = read_string(&element, "DataSourceUri");
        if (source && sensor_paths.count(canonical_path(*source))) return;
        SensorReading reading;
        reading.name =
            read_string(&element, "DeviceName").value_or("Temperature" + std::to_string(i));
        reading.kind = "temperature";
        reading.value = read_number(&element, "Reading");
        reading.unit = "Cel";
        readings.add(std::move(reading), chassis_id);
      });
  return counts;
}

void add_old_readings(Readings& readings, const json& chassis, const std::string& chassis_id,
                      ChassisCounts covered) {
  const ResourceGraph& graph = readings.graph();
  std::string thermal_path = link_of(chassis, "Thermal");
  const json* thermal = thermal_path.empty() ? nullptr : graph.find(thermal_path);
  if (!covered.temperatures) {
    each_element(thermal, "Temperatures", [&](const json& element, std::size_t i) {
      readings.add(from_element(element, readings.temperature_kind(element), "ReadingCelsius",
                                "Cel", "Temperature" + std::to_string(i)),
                   chassis_id);
    });
  }
  if (!covered.fans) {
    each_element(thermal, "Fans", [&](const json& element, std::size_t i) {
      // Thermal v1.0 had ReadingRPM; later versions Reading with ReadingUnits (RPM or Percent).
      bool rpm_only = !property(element, "Reading") && property(element, "ReadingRPM");
      std::string unit = read_string(&element, "ReadingUnits").value_or("RPM");
      if (unit == "Percent") unit = "%";
      readings.add(from_element(element, "fan", rpm_only ? "ReadingRPM" : "Reading", unit,
                                "Fan" + std::to_string(i)),
                   chassis_id);
    });
  }
  std::string power_path = link_of(chassis, "Power");
  const json* power = power_path.empty() ? nullptr : graph.find(power_path);
  if (!covered.voltages)
    each_element(power, "Voltages", [&](const json& element, std::size_t i) {
      readings.add(
          from_element(element, "voltage", "ReadingVolts", "V", "Voltage" + std::to_string(i)),
          chassis_id);
    });
  if (!covered.power)
    each_element(power, "PowerControl", [&](const json& element, std::size_t i) {
      readings.add(from_element(element, "power", "PowerConsumedWatts", "W",
                                "PowerControl" + std::to_string(i)),
                   chassis_id);
    });
}

}  // namespace

std::vector<SensorReading> normalize_sensor_readings(const ResourceGraph& graph,
                                                     const std::string& system_path) {
  Readings readings(graph);
  for (const auto& chassis_path : chassis_of(graph, system_path)) {
    const json& chassis = *graph.find(chassis_path);
    std::string chassis_id = resource_id(chassis, chassis_path);

    // Sensors a Fan names as its DataSourceUri are fan speeds even when given in percent.
    std::set<std::string> fan_sources;
    std::string thermal = link_of(chassis, "ThermalSubsystem");
    const json* thermal_document = thermal.empty() ? nullptr : graph.find(thermal);
    std::string fans = thermal_document ? link_of(*thermal_document, "Fans") : std::string{};
    for (const auto& path : fans.empty() ? std::vector<std::string>{} : graph.members(fans)) {
      auto source = read_string(read_object(graph.find(path), "SpeedPercent"), "DataSourceUri");
      if (source) fan_sources.insert(canonical_path(*source));
    }

    std::set<std::string> sensor_paths;
    ChassisCounts from_sensors;
    std::string sensors = link_of(chassis, "Sensors");
    for (const auto& path : sensors.empty() ? std::vector<std::string>{} : graph.members(sensors)) {
      const json* sensor = graph.find(path);
      if (!sensor) continue;
      sensor_paths.insert(path);
      SensorReading reading = from_sensor(readings, *sensor, path, fan_sources.count(path) > 0);
      from_sensors.cover(reading.kind);
      readings.add(std::move(reading), chassis_id);
    }
    ChassisCounts covered = add_subsystem_readings(readings, chassis, chassis_id, sensor_paths);
    covered.fans = covered.fans || from_sensors.fans;
    covered.temperatures = covered.temperatures || from_sensors.temperatures;
    covered.voltages = from_sensors.voltages;
    covered.power = from_sensors.power;
    add_old_readings(readings, chassis, chassis_id, covered);
  }
  return readings.take();
}

}  // namespace ironhold::bmc::redfish

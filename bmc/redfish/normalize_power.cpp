// What a System draws from the wall. A chassis reports its power several times over (a total, each
// power supply, each GPU, each fan zone), so the readings cannot simply be added. In order of
// trust, from the System's chassis (normalize_links.hpp's order, the System's own first):
//   1. a Sensor with ReadingType Power and PhysicalContext Chassis (the chassis' total: iLO 6,
//      OpenBMC, HGX's Total_Power);
//   2. the old Power resource's PowerControl[0].PowerConsumedWatts (iDRAC, iLO 4 and 5, AMI);
//   3. the sum of the power supplies' input: the old PowerSupplies[].PowerInputWatts, else Sensors
//      with PhysicalContext PowerSupply (which some BMCs report as output: close enough for an
//      estimate when nothing better exists, and the source says which it was).
// A reading that is absent, not a number, negative or past 1 MW is no reading.
#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/normalize_links.hpp"
#include "bmc/redfish/normalize_parts.hpp"

namespace ironhold::bmc::redfish {
namespace input_power {

using nlohmann::json;

std::optional<double> watts(const json* object, std::string_view key) {
  const auto value = read_number(object, key);
  if (!value || *value < 0 || *value > 1e6) return std::nullopt;
  return value;
}

bool is_power_sensor(const json& sensor, std::string_view context) {
  return read_string(&sensor, "ReadingType") == "Power" &&
         read_string(&sensor, "PhysicalContext") == context;
}

std::vector<std::pair<std::string, const json*>> sensors_of(const ResourceGraph& graph,
                                                            const json& chassis) {
  std::vector<std::pair<std::string, const json*>> out;
  const std::string sensors = link_of(chassis, "Sensors");
  if (sensors.empty()) return out;
  for (const auto& path : graph.members(sensors))
    if (const json* sensor = graph.find(path)) out.emplace_back(path, sensor);
  return out;
}

}  // namespace input_power

std::optional<InputPower> normalize_input_power(const ResourceGraph& graph,
                                                const std::string& system_path) {
  using namespace input_power;
  const auto chassis_paths = chassis_of(graph, system_path);
  for (const auto& path : chassis_paths) {
    const json& chassis = *graph.find(path);
    for (const auto& [sensor_path, sensor] : sensors_of(graph, chassis))
      if (is_power_sensor(*sensor, "Chassis"))
        if (const auto w = watts(sensor, "Reading"))
          return InputPower{*w, "Sensor " + resource_id(*sensor, sensor_path)};
  }
  for (const auto& path : chassis_paths) {
    const std::string power_path = link_of(*graph.find(path), "Power");
    const json* power = power_path.empty() ? nullptr : graph.find(power_path);
    const json* controls = read_array(power, "PowerControl");
    if (controls && !controls->empty() && (*controls)[0].is_object())
      if (const auto w = watts(&(*controls)[0], "PowerConsumedWatts"))
        return InputPower{*w, "PowerControl"};
  }
  double sum = 0;
  int supplies = 0;
  for (const auto& path : chassis_paths) {
    const std::string power_path = link_of(*graph.find(path), "Power");
    const json* power = power_path.empty() ? nullptr : graph.find(power_path);
    if (const json* psus = read_array(power, "PowerSupplies"))
      for (const auto& psu : *psus)
        if (const auto w = psu.is_object() ? watts(&psu, "PowerInputWatts") : std::nullopt)
          sum += *w, ++supplies;
  }
  if (supplies > 0)
    return InputPower{sum, "PowerInputWatts of " + std::to_string(supplies) + " power supplies"};
  for (const auto& path : chassis_paths)
    for (const auto& [sensor_path, sensor] : sensors_of(graph, *graph.find(path)))
      if (is_power_sensor(*sensor, "PowerSupply"))
        if (const auto w = watts(sensor, "Reading")) sum += *w, ++supplies;
  if (supplies > 0)
    return InputPower{sum, "Sensors of " + std::to_string(supplies) + " power supplies"};
  return std::nullopt;
}

}  // namespace ironhold::bmc::redfish

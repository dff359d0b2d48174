#include "sim/redfish/drift.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ironhold::sim::redfish {

using nlohmann::json;

namespace {

std::uint64_t mix(std::uint64_t z) {  // splitmix64 finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t hash_text(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// A number in [0, 1) fixed by its inputs.
double unit(std::uint64_t seed, const std::string& where, std::uint64_t tick) {
  const std::uint64_t h = mix(seed ^ mix(hash_text(where) + tick * 0x9E3779B97F4A7C15ull));
  return static_cast<double>(h >> 11) / 9007199254740992.0;  // 2^53
}

struct Thresholds {
  std::vector<double> upper;  // caution, critical, fatal as given (any may be missing)
  std::vector<double> lower;
  double caution = NAN;
  double critical = NAN;
};

void add(std::vector<double>& to, const json& object, const char* name) {
  const auto it = object.find(name);
  if (it != object.end() && it->is_number()) to.push_back(it->get<double>());
}

void add_nested(std::vector<double>& to, const json& thresholds, const char* name) {
  const auto it = thresholds.find(name);
  if (it != thresholds.end() && it->is_object()) add(to, *it, "Reading");
}

// Sensor: Thresholds.UpperCaution.Reading...; Thermal: UpperThresholdNonCritical... .
Thresholds thresholds_of(const json& item) {
  Thresholds t;
  const auto nested = item.find("Thresholds");
  if (nested != item.end() && nested->is_object()) {
    for (const char* n : {"UpperCaution", "UpperCritical", "UpperFatal"})
      add_nested(t.upper, *nested, n);
    for (const char* n : {"LowerCaution", "LowerCritical", "LowerFatal"})
      add_nested(t.lower, *nested, n);
    std::vector<double> c, k;
    add_nested(c, *nested, "UpperCaution");
    add_nested(k, *nested, "UpperCritical");
    if (!c.empty()) t.caution = c[0];
    if (!k.empty()) t.critical = k[0];
  }
  for (const char* n :
       {"UpperThresholdNonCritical", "UpperThresholdCritical", "UpperThresholdFatal"})
    add(t.upper, item, n);
  for (const char* n :
       {"LowerThresholdNonCritical", "LowerThresholdCritical", "LowerThresholdFatal"})
    add(t.lower, item, n);
  if (std::isnan(t.caution) && item.contains("UpperThresholdNonCritical") &&
      item["UpperThresholdNonCritical"].is_number())
    t.caution = item["UpperThresholdNonCritical"].get<double>();
  if (std::isnan(t.critical) && item.contains("UpperThresholdCritical") &&
      item["UpperThresholdCritical"].is_number())
    t.critical = item["UpperThresholdCritical"].get<double>();
  return t;
}

bool crosses(double base, double value, const Thresholds& t) {
  for (double u : t.upper)
    if (base < u && value >= u) return true;
  for (double l : t.lower)
    if (base > l && value <= l) return true;
  return false;
}

// A reading a few percent off `base`, on the same side of every threshold as `base`.
double wander(double base, bool integral, const Thresholds& t, double u) {
  double lo = base - (std::fabs(base) * 0.03 + (integral ? 1.0 : 0.2));
  double hi = base + (std::fabs(base) * 0.03 + (integral ? 1.0 : 0.2));
  for (double up : t.upper)
    if (base < up) hi = std::min(hi, base + (up - base) / 2);
  for (double low : t.lower)
    if (base > low) lo = std::max(lo, base - (base - low) / 2);
  if (base >= 0) lo = std::max(lo, 0.0);
  double value = lo + (hi - lo) * u;
  if (integral)
    value = std::round(value);
  else
    value = std::round(value * 100) / 100;
  return crosses(base, value, t) ? base : value;
}

// Above the caution (warning) or critical threshold; nullopt-like NAN when it has none.
double overheat(double base, const Thresholds& t, Heat heat, double u) {
  if (heat == Heat::warning && !std::isnan(t.caution)) {
    const double top = std::isnan(t.critical) ? t.caution + 4 : t.critical;
    return t.caution + (top - t.caution) * (0.2 + 0.5 * u);
  }
  if (heat == Heat::critical) {
    if (!std::isnan(t.critical)) return t.critical + 1 + 2 * u;
    if (!std::isnan(t.caution)) return t.caution + 8 + 2 * u;
  }
  (void)base;
  return NAN;
}

void move(json& item, const char* field, bool temperature, std::uint64_t seed,
          const std::string& where, std::uint64_t tick, Heat heat) {
  const auto it = item.find(field);
  if (it == item.end() || !it->is_number()) return;
  const bool integral = it->is_number_integer();
  const double base = it->get<double>();
  const Thresholds t = thresholds_of(item);
  const double u = unit(seed, where + "/" + field, tick);
  double value = NAN;
  if (temperature && heat != Heat::normal) value = overheat(base, t, heat, u);
  const bool hot = !std::isnan(value);
  if (!hot) value = wander(base, integral, t, u);
  if (integral)
    *it = static_cast<std::int64_t>(std::round(value));
  else
    *it = std::round(value * 100) / 100;
  if (hot && item.contains("Status") && item["Status"].is_object())
    item["Status"]["Health"] = heat == Heat::warning ? "Warning" : "Critical";
}

void move_array(json& doc, const char* array, const char* field, bool temperature,
                std::uint64_t seed, std::uint64_t tick, Heat heat) {
  const auto it = doc.find(array);
  if (it == doc.end() || !it->is_array()) return;
  const std::string where = doc.value("@odata.id", "") + "#" + array + "/";
  for (std::size_t i = 0; i < it->size(); ++i)
    if ((*it)[i].is_object())
      move((*it)[i], field, temperature, seed, where + std::to_string(i), tick, heat);
}

}  // namespace

Heat heat_of(const std::string& health) {
  if (health == "Critical") return Heat::critical;
  if (health == "Warning") return Heat::warning;
  return Heat::normal;
}

bool drifts(const json& document) {
  if (!document.is_object()) return false;
  const std::string type = document.value("@odata.type", "");
  return type.rfind("#Sensor.", 0) == 0 || type.rfind("#Thermal.", 0) == 0 ||
         type.rfind("#Power.", 0) == 0;
}

json drifted(const json& base, std::uint64_t seed, std::uint64_t tick, Heat heat) {
  json doc = base;
  const std::string type = doc.value("@odata.type", "");
  const std::string where = doc.value("@odata.id", "");
  if (type.rfind("#Sensor.", 0) == 0) {
    const bool temperature =
        doc.value("ReadingUnits", "") == "Cel" || doc.value("ReadingType", "") == "Temperature";
    move(doc, "Reading", temperature, seed, where, tick, heat);
  } else if (type.rfind("#Thermal.", 0) == 0) {
    move_array(doc, "Temperatures", "ReadingCelsius", true, seed, tick, heat);
    move_array(doc, "Fans", "Reading", false, seed, tick, heat);
    move_array(doc, "Fans", "ReadingRPM", false, seed, tick, heat);
  } else if (type.rfind("#Power.", 0) == 0) {
    move_array(doc, "PowerControl", "PowerConsumedWatts", false, seed, tick, heat);
    move_array(doc, "Voltages", "ReadingVolts", false, seed, tick, heat);
    move_array(doc, "PowerSupplies", "LastPowerOutputWatts", false, seed, tick, heat);
  }
  return doc;
}

}  // namespace ironhold::sim::redfish

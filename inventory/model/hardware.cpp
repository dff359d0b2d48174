#include "inventory/model/hardware.hpp"

namespace ironhold {
namespace {

constexpr std::string_view component_kind_names[] = {"cpu", "gpu", "memory", "drive",
                                                     "nic", "psu", "fan",    "other"};
constexpr std::string_view severity_names[] = {"info", "warning", "critical"};

template <class T>
nlohmann::json or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

std::string_view to_string(ComponentKind v) {
  return component_kind_names[static_cast<int>(v)];
}
template <>
std::optional<ComponentKind> parse_enum<ComponentKind>(std::string_view s) {
  return enum_from_names<ComponentKind>(component_kind_names, s);
}
template <>
std::span<const std::string_view> enum_names<ComponentKind>() {
  return component_kind_names;
}

std::string_view to_string(Severity v) {
  return severity_names[static_cast<int>(v)];
}
template <>
std::optional<Severity> parse_enum<Severity>(std::string_view s) {
  return enum_from_names<Severity>(severity_names, s);
}
template <>
std::span<const std::string_view> enum_names<Severity>() {
  return severity_names;
}

nlohmann::json to_json(const HardwareSummary& s) {
  return {{"cpu_count", s.cpu_count},
          {"cpu_model", or_null(s.cpu_model)},
          {"gpu_count", s.gpu_count},
          {"gpu_model", or_null(s.gpu_model)},
          {"gpu_model_raw", or_null(s.gpu_model_raw)},
          {"memory_gib", or_null(s.memory_gib)},
          {"drive_count", s.drive_count},
          {"drive_capacity_gb", or_null(s.drive_capacity_gb)}};
}

}  // namespace ironhold

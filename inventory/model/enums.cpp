#include "inventory/model/enums.hpp"

#include <string>

namespace ironhold {
namespace {

constexpr std::string_view power_names[] = {"on", "off", "transitioning", "unknown"};
constexpr std::string_view health_names[] = {"ok", "warning", "critical", "unknown"};
constexpr std::string_view source_names[] = {"bmc", "cloud"};
constexpr std::string_view lifecycle_names[] = {
    "enrolled", "inspecting", "inspect_failed", "available", "provisioning",
    "provision_failed", "deployed", "cleaning", "clean_failed", "retired"};
constexpr std::string_view role_names[] = {"viewer", "operator", "admin", "auditor"};

}  // namespace

std::string_view to_string(PowerState v) { return power_names[static_cast<int>(v)]; }
std::string_view to_string(Health v) { return health_names[static_cast<int>(v)]; }
std::string_view to_string(Source v) { return source_names[static_cast<int>(v)]; }
std::string_view to_string(Lifecycle v) { return lifecycle_names[static_cast<int>(v)]; }
std::string_view to_string(Role v) { return role_names[static_cast<int>(v)]; }

template <> std::optional<PowerState> parse_enum<PowerState>(std::string_view s) { return enum_from_names<PowerState>(power_names, s); }
template <> std::optional<Health> parse_enum<Health>(std::string_view s) { return enum_from_names<Health>(health_names, s); }
template <> std::optional<Source> parse_enum<Source>(std::string_view s) { return enum_from_names<Source>(source_names, s); }
template <> std::optional<Lifecycle> parse_enum<Lifecycle>(std::string_view s) { return enum_from_names<Lifecycle>(lifecycle_names, s); }
template <> std::optional<Role> parse_enum<Role>(std::string_view s) { return enum_from_names<Role>(role_names, s); }

template <> std::span<const std::string_view> enum_names<PowerState>() { return power_names; }
template <> std::span<const std::string_view> enum_names<Health>() { return health_names; }
template <> std::span<const std::string_view> enum_names<Source>() { return source_names; }
template <> std::span<const std::string_view> enum_names<Lifecycle>() { return lifecycle_names; }
template <> std::span<const std::string_view> enum_names<Role>() { return role_names; }

std::string join_names(std::span<const std::string_view> names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += (i + 1 == names.size()) ? " or " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace ironhold

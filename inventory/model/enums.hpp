#pragma once
// The canonical states of the normalized model. Drivers translate vendor strings into these at the
// edge; nothing past a driver sees a vendor value. Each enum has one table of names (enums.cpp).
#include <optional>
#include <span>
#include <string_view>

namespace ironhold {

enum class PowerState { on, off, transitioning, unknown };
enum class Health { ok, warning, critical, unknown };
enum class Source { bmc, cloud };
enum class Lifecycle {
  enrolled, inspecting, inspect_failed, available, provisioning, provision_failed, deployed,
  cleaning, clean_failed, retired
};
// viewer < operator < admin; auditor reads everything plus exports and the audit log.
enum class Role { viewer, operator_, admin, auditor };

std::string_view to_string(PowerState);
std::string_view to_string(Health);
std::string_view to_string(Source);
std::string_view to_string(Lifecycle);
std::string_view to_string(Role);

template <class E> std::optional<E> parse_enum(std::string_view);
template <> std::optional<PowerState> parse_enum<PowerState>(std::string_view);
template <> std::optional<Health> parse_enum<Health>(std::string_view);
template <> std::optional<Source> parse_enum<Source>(std::string_view);
template <> std::optional<Lifecycle> parse_enum<Lifecycle>(std::string_view);
template <> std::optional<Role> parse_enum<Role>(std::string_view);

// All names of an enum, in declaration order (for validation messages and OpenAPI enums).
template <class E> std::span<const std::string_view> enum_names();
template <> std::span<const std::string_view> enum_names<PowerState>();
template <> std::span<const std::string_view> enum_names<Health>();
template <> std::span<const std::string_view> enum_names<Source>();
template <> std::span<const std::string_view> enum_names<Lifecycle>();
template <> std::span<const std::string_view> enum_names<Role>();

// The enumerator whose name (in a table in declaration order) is `text`: what each parse_enum does.
template <class E>
std::optional<E> enum_from_names(std::span<const std::string_view> names, std::string_view text) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return static_cast<E>(i);
  return std::nullopt;
}

// "a, b or c": for error messages that list the accepted values.
std::string join_names(std::span<const std::string_view> names);

}  // namespace ironhold

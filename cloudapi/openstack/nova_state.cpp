// Nova's server states -> the normalized power state, gone flag and health, by one table.
// Precedence: a deleted server is gone whatever else it says; a task in flight (powering-on,
// rebooting, rebuilding, ...) is a transition; ERROR is critical with an unknown power state;
// otherwise the status decides, some statuses through OS-EXT-STS:power_state.
#include <array>

#include "cloudapi/openstack/nova_json.hpp"

namespace ironhold::cloudapi::openstack {
namespace {

// How a status maps when no task is in flight.
enum class Rule {
  on_unless_powered_down,  // ACTIVE: on, but a power_state of 4/6 (shut down, crashed) says off
  off,
  transitioning,
  by_power_state,  // PAUSED, SUSPENDED, RESCUE, VERIFY_RESIZE: 1 on, 4/6 off, else unknown
  error,
  gone,
  unknown,
};

struct StatusRow {
  std::string_view status;
  Rule rule;
};

constexpr std::array kStatusTable{
    StatusRow{"ACTIVE", Rule::on_unless_powered_down},
    StatusRow{"SHUTOFF", Rule::off},
    StatusRow{"SHELVED", Rule::off},
    StatusRow{"SHELVED_OFFLOADED", Rule::off},
    StatusRow{"BUILD", Rule::transitioning},
    StatusRow{"REBOOT", Rule::transitioning},
    StatusRow{"HARD_REBOOT", Rule::transitioning},
    StatusRow{"REBUILD", Rule::transitioning},
    StatusRow{"RESIZE", Rule::transitioning},
    StatusRow{"REVERT_RESIZE", Rule::transitioning},
    StatusRow{"MIGRATING", Rule::transitioning},
    StatusRow{"PASSWORD", Rule::transitioning},
    StatusRow{"PAUSED", Rule::by_power_state},
    StatusRow{"SUSPENDED", Rule::by_power_state},
    StatusRow{"RESCUE", Rule::by_power_state},
    StatusRow{"VERIFY_RESIZE", Rule::by_power_state},
    StatusRow{"ERROR", Rule::error},
    StatusRow{"DELETED", Rule::gone},
    StatusRow{"SOFT_DELETED", Rule::gone},
    StatusRow{"UNKNOWN", Rule::unknown},
};

// OS-EXT-STS:power_state codes.
constexpr long long kRunning = 1;
constexpr long long kShutdown = 4;
constexpr long long kCrashed = 6;

PowerState by_power_state(std::optional<long long> power_state) {
  if (power_state == kRunning) return PowerState::on;
  if (power_state == kShutdown || power_state == kCrashed) return PowerState::off;
  return PowerState::unknown;
}

Rule rule_for(std::string_view status) {
  for (const auto& row : kStatusTable)
    if (row.status == status) return row.rule;
  return Rule::unknown;
}

}  // namespace

ServerState map_server_state(std::string_view status, std::optional<long long> power_state,
                             std::optional<std::string_view> task_state, bool has_fault) {
  ServerState out;
  const Rule rule = rule_for(status);
  if (rule == Rule::gone) {
    out.gone = true;
    out.power = PowerState::off;
    return out;
  }
  if (rule == Rule::error) {
    out.health = Health::critical;
    out.power =
        task_state && !task_state->empty() ? PowerState::transitioning : PowerState::unknown;
    return out;
  }
  if ((rule == Rule::on_unless_powered_down || rule == Rule::off) && !has_fault)
    out.health = Health::ok;
  if (task_state && !task_state->empty()) {
    out.power = PowerState::transitioning;
    return out;
  }
  switch (rule) {
    case Rule::on_unless_powered_down:
      out.power =
          !power_state || power_state == kRunning ? PowerState::on : by_power_state(power_state);
      break;
    case Rule::off:
      out.power = PowerState::off;
      break;
    case Rule::transitioning:
      out.power = PowerState::transitioning;
      break;
    case Rule::by_power_state:
      out.power = by_power_state(power_state);
      break;
    default:
      out.power = PowerState::unknown;
      break;
  }
  return out;
}

}  // namespace ironhold::cloudapi::openstack

#pragma once
// A node's lifecycle and the operator's actions on it, as one table (lifecycle.cpp) that the API,
// the tests and the docs all read:
//   enrolled → inspecting → available → provisioning → deployed; deployed → provisioning
//   (reprovision); deployed → cleaning → available (release); failures to inspect_failed,
//   provision_failed, clean_failed; retired. Maintenance is a flag beside it, not a state.
// The poller moves enrolled → inspecting → available (or inspect_failed) by itself; the tasks
// move provisioning and cleaning on; everything else is one of these actions.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/model/enums.hpp"

namespace ironhold {

enum class LifecycleAction { manage, provide, release, retry, retire };
std::string_view to_string(LifecycleAction);
template <>
std::optional<LifecycleAction> parse_enum<LifecycleAction>(std::string_view);
template <>
std::span<const std::string_view> enum_names<LifecycleAction>();

// What an allowed action does.
enum class LifecycleEffect {
  inspect,         // to inspecting, and the full inventory is read now
  clean,           // to cleaning, and a clean task (power off, verified) runs; then available or
                   // clean_failed
  mark_available,  // to available at once: the operator vouches for the node
  retire,          // to retired (history kept)
};

struct LifecycleTransition {
  Lifecycle from;
  LifecycleAction action;
  Lifecycle to;  // the state the node is in when the request returns
  LifecycleEffect effect;
};

// Every allowed (from, action) pair.
std::span<const LifecycleTransition> lifecycle_transitions();
// The transition, or nullopt when the action is not allowed from `from`.
std::optional<LifecycleTransition> find_transition(Lifecycle from, LifecycleAction action);
// The actions allowed from a state, in table order (for 409 messages and the console).
std::vector<LifecycleAction> allowed_actions(Lifecycle from);
// Throws conflict (409) naming the current state and the allowed actions, unless allowed.
LifecycleTransition check_transition(Lifecycle from, LifecycleAction action);

}  // namespace ironhold

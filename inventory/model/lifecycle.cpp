#include "inventory/model/lifecycle.hpp"

#include "inventory/error.hpp"

namespace ironhold {
namespace {

constexpr std::string_view action_names[] = {"manage", "provide", "release", "retry", "retire"};

using L = Lifecycle;
using A = LifecycleAction;
using E = LifecycleEffect;

// The whole state machine. Provisioning and cleaning are left only by their tasks, never by hand,
// so that a node is not retired or re-inspected half-way through an install.
constexpr LifecycleTransition kTransitions[] = {
    {L::enrolled, A::manage, L::inspecting, E::inspect},
    {L::available, A::manage, L::inspecting, E::inspect},
    {L::inspect_failed, A::manage, L::inspecting, E::inspect},
    {L::inspect_failed, A::retry, L::inspecting, E::inspect},
    {L::clean_failed, A::retry, L::cleaning, E::clean},
    {L::deployed, A::release, L::cleaning, E::clean},
    {L::enrolled, A::provide, L::available, E::mark_available},
    {L::inspect_failed, A::provide, L::available, E::mark_available},
    {L::provision_failed, A::provide, L::available, E::mark_available},
    {L::clean_failed, A::provide, L::available, E::mark_available},
    {L::enrolled, A::retire, L::retired, E::retire},
    {L::inspecting, A::retire, L::retired, E::retire},
    {L::inspect_failed, A::retire, L::retired, E::retire},
    {L::available, A::retire, L::retired, E::retire},
    {L::provision_failed, A::retire, L::retired, E::retire},
    {L::deployed, A::retire, L::retired, E::retire},
    {L::clean_failed, A::retire, L::retired, E::retire},
};

}  // namespace

std::string_view to_string(LifecycleAction a) {
  return action_names[static_cast<int>(a)];
}
template <>
std::optional<LifecycleAction> parse_enum<LifecycleAction>(std::string_view s) {
  return enum_from_names<LifecycleAction>(action_names, s);
}
template <>
std::span<const std::string_view> enum_names<LifecycleAction>() {
  return action_names;
}

std::span<const LifecycleTransition> lifecycle_transitions() {
  return kTransitions;
}

std::optional<LifecycleTransition> find_transition(Lifecycle from, LifecycleAction action) {
  for (const auto& t : kTransitions)
    if (t.from == from && t.action == action) return t;
  return std::nullopt;
}

std::vector<LifecycleAction> allowed_actions(Lifecycle from) {
  std::vector<LifecycleAction> out;
  for (const auto& t : kTransitions)
    if (t.from == from) out.push_back(t.action);
  return out;
}

LifecycleTransition check_transition(Lifecycle from, LifecycleAction action) {
  if (auto t = find_transition(from, action)) return *t;
  const auto allowed = allowed_actions(from);
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i)
    list += (i ? ", " : "") + std::string(to_string(allowed[i]));
  std::string message = "cannot " + std::string(to_string(action)) + " a node that is " +
                        std::string(to_string(from)) + "; ";
  message += allowed.empty()
                 ? "no lifecycle action is allowed in that state (a task is moving it on)"
                 : "allowed: " + list;
  throw conflict(message, "action");
}

}  // namespace ironhold

// Power state and health of each System from a status poll, with an event for every change.
#include "inventory/db/poll_record.hpp"

namespace ironhold::db {
namespace {

Severity severity_of(Health health) {
  switch (health) {
    case Health::critical:
      return Severity::critical;
    case Health::warning:
      return Severity::warning;
    default:
      return Severity::info;
  }
}

}  // namespace

void record_statuses(pqxx::transaction_base& tx, const PolledFamily& family,
                     const std::vector<SystemStatus>& systems) {
  for (std::size_t i = 0; i < systems.size(); ++i) {
    const auto& status = systems[i];
    const PolledNode* node = family.for_system(i, status.system_id);
    if (!node) continue;  // a System the next inspection will enroll
    const std::string health(to_string(status.health));
    const std::string power(to_string(status.power_state));
    if (health != node->health && node->health != "unknown")
      add_event(tx, *node, "health_change", severity_of(status.health),
                "health changed from " + node->health + " to " + health,
                {{"from", node->health}, {"to", health}});
    if (power != node->power_state && node->power_state != "unknown")
      add_event(tx, *node, "power_change", Severity::info,
                "power state changed from " + node->power_state + " to " + power,
                {{"from", node->power_state}, {"to", power}});
    if (health != node->health || power != node->power_state)
      tx.exec_params(
          "UPDATE nodes SET health = $2, power_state = $3, updated_at = now() WHERE id = $1::uuid",
          node->id, health, power);
  }
}

}  // namespace ironhold::db

#pragma once
// Internal to inventory/db/: writing one poll result (PollStore::record runs these inside a
// savepoint per result).
#include <map>
#include <optional>
#include <pqxx/pqxx>
#include <string>

#include "inventory/db/poll_store.hpp"

namespace ironhold::db {

// A node the result is about: the polled node itself (system_id "") or one of the further
// Systems behind its BMC, as they are before the result is applied (rows locked).
struct PolledNode {
  std::string id, name;
  std::string health, power_state;
  std::optional<bool> reachable;
  std::optional<std::string> last_error;
};

struct PolledFamily {
  PolledNode parent;
  std::map<std::string, PolledNode> children;  // by system_id
  std::string endpoint;
  nlohmann::json options;
  std::optional<std::string> tls_fingerprint;
  // False until the first inspection is recorded: what it finds is the baseline, not "added".
  bool inspected_before = false;
  // The node that stands for systems[i] of a report, or null when it has none (yet).
  const PolledNode* for_system(std::size_t index, const std::string& system_id) const;
};

void record_poll_result(pqxx::transaction_base& tx, const PollResult& result);

// The pieces, one file each.
PolledFamily lock_family(pqxx::transaction_base& tx, const std::string& node_id);
void record_outcome(pqxx::transaction_base& tx, PolledFamily& family, const DriverOutcome& outcome);
void record_statuses(pqxx::transaction_base& tx, const PolledFamily& family,
                     const std::vector<SystemStatus>& systems);
void record_sensors(pqxx::transaction_base& tx, const PolledNode& node,
                    const std::vector<SensorReading>& sensors,
                    const std::vector<HardwareEvent>& events);
void record_inventory(pqxx::transaction_base& tx, PolledFamily& family,
                      const InspectionReport& report);

// An event row of the node (kind: "health_change", "tls_pin_mismatch", ...).
void add_event(pqxx::transaction_base& tx, const PolledNode& node, const std::string& kind,
               Severity severity, const std::string& message,
               const nlohmann::json& details = nlohmann::json::object());

}  // namespace ironhold::db

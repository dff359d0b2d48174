#pragma once
// Internal to inventory/db/: writing one poll result (PollStore::record runs a batch of them in one
// transaction, and again with a savepoint per result when one of them fails).
#include <map>
#include <optional>
#include <pqxx/pqxx>
#include <string>

#include "inventory/db/poll_store.hpp"

namespace ironhold::db {

// A node the result is about: the polled node itself (system_id "") or one of the further
// Systems behind its BMC, as they are before the result is applied.
struct PolledNode {
  std::string id, name;
  std::string health, power_state;
  std::optional<bool> reachable;
  std::optional<std::string> last_error, last_error_message;
  bool seen_recently = false;  // last_seen within the minute it is kept to
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

// Writes what the result changes. False when the node is no longer in service (retired or purged
// while its poll ran): nothing was written. `prepared`: the hot statements as prepared ones.
// A result whose only news is that the BMC still answers (last_seen due its once-a-minute
// refresh) writes nothing here: its nodes are added to `refresh_due`, for refresh_last_seen.
bool record_poll_result(pqxx::transaction_base& tx, const PollResult& result, bool prepared,
                        std::vector<std::string>& refresh_due);
// last_seen = now() for those nodes, in one statement, where it is older than the minute.
void refresh_last_seen(pqxx::transaction_base& tx, const std::vector<std::string>& node_ids,
                       bool prepared);

// The node and the Systems behind its BMC; locked (FOR UPDATE) when the result will be written.
// Nothing when the node is no longer in service.
enum class FamilyRead { unlocked, locked };
std::optional<PolledFamily> read_family(pqxx::transaction_base& tx, const std::string& node_id,
                                        FamilyRead how, bool prepared);
// What recording the result would write for this family as read: something (a row, an event)
// besides last_seen, or only the refresh of last_seen of `refresh` (nodes of the family), or
// nothing at all.
struct ResultChanges {
  bool anything_else = false;
  std::vector<std::string> refresh;
};
ResultChanges changes_of(const PolledFamily& family, const PollResult& result);

// The pieces, one file each.
void record_outcome(pqxx::transaction_base& tx, PolledFamily& family, const DriverOutcome& outcome);
void record_statuses(pqxx::transaction_base& tx, const PolledFamily& family,
                     const std::vector<SystemStatus>& systems);
// Readings, log entries, and the node's input power into its hourly energy (migration 0033).
void record_sensors(pqxx::transaction_base& tx, const PolledNode& node,
                    const std::vector<SensorReading>& sensors,
                    const std::vector<HardwareEvent>& events,
                    const std::optional<InputPower>& input_power);
void record_inventory(pqxx::transaction_base& tx, PolledFamily& family,
                      const InspectionReport& report);
// The node's BIOS settings as a new version when they differ from the current one.
void record_bios(pqxx::transaction_base& tx, const PolledNode& node, const BiosSettings& bios);
// [{attribute, from, to}] for every attribute whose value differs (null: absent on that side).
nlohmann::json bios_changes(const nlohmann::json& before, const nlohmann::json& after);

// An event row of the node (kind: "health_change", "tls_pin_mismatch", ...).
void add_event(pqxx::transaction_base& tx, const PolledNode& node, const std::string& kind,
               Severity severity, const std::string& message,
               const nlohmann::json& details = nlohmann::json::object());

}  // namespace ironhold::db

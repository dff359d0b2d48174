#include "inventory/db/poll_record.hpp"

#include "inventory/db/db_json.hpp"
#include "inventory/db/event_append.hpp"
#include "inventory/db/node_rows.hpp"
#include "inventory/db/prepared.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/error.hpp"

namespace ironhold::db {
namespace {

PolledNode polled_node(const pqxx::row& r) {
  PolledNode n;
  n.id = r["id"].as<std::string>();
  n.name = r["name"].as<std::string>();
  n.health = r["health"].as<std::string>();
  n.power_state = r["power_state"].as<std::string>();
  if (!r["reachable"].is_null()) n.reachable = r["reachable"].as<bool>();
  n.last_error = optional_text(r["last_error"]);
  n.last_error_message = optional_text(r["last_error_message"]);
  n.seen_recently = r["seen_recently"].as<bool>();
  return n;
}

// Reachability: can anything be said about the BMC's state at all? A BMC that refuses the
// credentials or answers nonsense is reachable; one behind a swapped certificate is not (nothing
// it says can be trusted).
bool reachable_despite(DriverErrorCode code) {
  switch (code) {
    case DriverErrorCode::unreachable:
    case DriverErrorCode::timeout:
    case DriverErrorCode::tls_pin_mismatch:
    case DriverErrorCode::tls_failed:
      return false;
    default:
      return true;
  }
}

Severity severity_of(DriverErrorCode code) {
  return code == DriverErrorCode::tls_pin_mismatch ? Severity::critical : Severity::warning;
}

// Trust on first use applies to https endpoints whose tls option is pin (the default).
bool pins_on_first_use(const PolledFamily& family) {
  const bool https = family.endpoint.rfind("https://", 0) == 0;
  const std::string mode = family.options.is_object() ? family.options.value("tls", "pin") : "pin";
  return https && mode == "pin";
}

// The family's rows, the node first. Unlocked for the check whether a result changes anything
// (most status polls change nothing); locked when it does, so that two instances recording
// results of one family (its status and its sensor poll) decide on the same state.
std::string family_select(std::string_view lock) {
  return "SELECT id, name, health, power_state, reachable, last_error, last_error_message, "
         "       coalesce(last_seen >= now() - interval '1 minute', false) AS seen_recently, "
         "       parent_id, system_id, coalesce(endpoint, '') AS endpoint, "
         "       options::text AS options, tls_fingerprint, "
         "       last_inspected IS NOT NULL AS inspected "
         "  FROM nodes WHERE (id = $1::uuid OR parent_id = $1::uuid) AND retired_at IS NULL "
         " ORDER BY parent_id NULLS FIRST " +
         std::string(lock);
}

}  // namespace

const PolledNode* PolledFamily::for_system(std::size_t index, const std::string& system_id) const {
  if (index == 0) return &parent;
  const auto it = children.find(system_id);
  return it == children.end() ? nullptr : &it->second;
}

std::optional<PolledFamily> read_family(pqxx::transaction_base& tx, const std::string& node_id,
                                        FamilyRead how, bool prepared) {
  static const HotStatement unlocked{"poll_family", family_select("")};
  static const HotStatement locked{"poll_family_locked", family_select("FOR UPDATE")};
  const auto rows = exec_hot(tx, prepared, how == FamilyRead::locked ? locked : unlocked, node_id);
  if (rows.empty() || rows[0]["id"].as<std::string>() != node_id) return std::nullopt;
  PolledFamily family;
  family.parent = polled_node(rows[0]);
  family.endpoint = rows[0]["endpoint"].as<std::string>();
  family.options = nlohmann::json::parse(rows[0]["options"].c_str(), nullptr, false);
  if (!rows[0]["tls_fingerprint"].is_null())
    family.tls_fingerprint = rows[0]["tls_fingerprint"].as<std::string>();
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (!rows[i]["system_id"].is_null())
      family.children.emplace(rows[i]["system_id"].as<std::string>(), polled_node(rows[i]));
  family.inspected_before = rows[0]["inspected"].as<bool>();
  return family;
}

// Mirrors the conditions under which record_outcome and record_statuses write: a difference
// here that they do not act on costs a lock, one they act on that is missing here loses a change.
ResultChanges changes_of(const PolledFamily& family, const PollResult& result) {
  ResultChanges changes;
  // An inspection writes what it found, or (failed) may move the lifecycle to inspect_failed.
  if (std::holds_alternative<InspectionReport>(result.report)) {
    changes.anything_else = true;
    return changes;
  }
  std::vector<const PolledNode*> nodes{&family.parent};
  for (const auto& [system, child] : family.children) nodes.push_back(&child);
  const DriverOutcome& outcome = result.outcome();
  if (outcome.error) {
    const std::string code(to_string(outcome.error->code));
    const std::string message = db_text(outcome.error->message);
    const bool reachable = reachable_despite(outcome.error->code);
    for (const auto* node : nodes) {
      if (node->last_error != code || node->reachable != reachable ||
          node->last_error_message != message) {
        changes.anything_else = true;
        return changes;
      }
      if (reachable && !node->seen_recently) changes.refresh.push_back(node->id);
    }
    return changes;
  }
  if (outcome.tls_fingerprint && !family.tls_fingerprint && pins_on_first_use(family)) {
    changes.anything_else = true;
    return changes;
  }
  for (const auto* node : nodes) {
    if (node->last_error || node->last_error_message || node->reachable != true) {
      changes.anything_else = true;
      return changes;
    }
    if (!node->seen_recently) changes.refresh.push_back(node->id);
  }
  const auto* status = std::get_if<StatusReport>(&result.report);
  if (status == nullptr) {  // sensor readings and inventories are always written
    changes.anything_else = true;
    return changes;
  }
  for (std::size_t i = 0; i < status->systems.size(); ++i) {
    const PolledNode* node = family.for_system(i, status->systems[i].system_id);
    if (node && (to_string(status->systems[i].health) != node->health ||
                 to_string(status->systems[i].power_state) != node->power_state)) {
      changes.anything_else = true;
      return changes;
    }
  }
  return changes;
}

void refresh_last_seen(pqxx::transaction_base& tx, const std::vector<std::string>& node_ids,
                       bool prepared) {
  if (node_ids.empty()) return;
  static const HotStatement refresh{
      "poll_refresh_last_seen",
      "UPDATE nodes SET last_seen = now() "
      " WHERE id = ANY($1::uuid[]) AND reachable "
      "   AND (last_seen IS NULL OR last_seen < now() - interval '1 minute')"};
  exec_hot(tx, prepared, refresh, text_array(node_ids));
}

void add_event(pqxx::transaction_base& tx, const PolledNode& node, const std::string& kind,
               Severity severity, const std::string& message, const nlohmann::json& details) {
  append_event(tx, {node.id, node.name, kind, severity, message, details});
}

void record_outcome(pqxx::transaction_base& tx, PolledFamily& family,
                    const DriverOutcome& outcome) {
  std::vector<PolledNode*> nodes{&family.parent};
  for (auto& [system, child] : family.children) nodes.push_back(&child);

  if (outcome.error) {
    const auto& error = *outcome.error;
    const std::string code(to_string(error.code));
    const bool reachable = reachable_despite(error.code);
    for (auto* node : nodes) {
      if (node->last_error != code)
        add_event(tx, *node, code, severity_of(error.code), error.message);
      // A BMC that keeps failing the same way is written when its failure changes, and (when it
      // answers at all) once a minute for last_seen, not at every poll: at 20% of 10,000 BMCs
      // failing, rewriting each unchanged row (with its index entries and the change feed's
      // trigger) cost PostgreSQL as much as all the healthy polls.
      tx.exec_params(
          "UPDATE nodes SET reachable = $2, last_error = $3, last_error_message = $4, "
          "       last_seen = CASE WHEN $2 THEN now() ELSE last_seen END "
          " WHERE id = $1::uuid AND (reachable IS DISTINCT FROM $2 "
          "       OR last_error IS DISTINCT FROM $3 OR last_error_message IS DISTINCT FROM $4 "
          "       OR ($2 AND (last_seen IS NULL OR last_seen < now() - interval '1 minute')))",
          node->id, reachable, code, db_text(error.message));
    }
    return;
  }

  if (outcome.tls_fingerprint && !family.tls_fingerprint && pins_on_first_use(family)) {
    tx.exec_params(
        "UPDATE nodes SET tls_fingerprint = $2 WHERE id = $1::uuid OR parent_id = $1::uuid",
        family.parent.id, *outcome.tls_fingerprint);
    add_event(tx, family.parent, "tls_pinned", Severity::info,
              "pinned the BMC's TLS certificate at the first contact (SHA-256 " +
                  *outcome.tls_fingerprint + ")",
              {{"sha256", *outcome.tls_fingerprint}});
    family.tls_fingerprint = outcome.tls_fingerprint;
  }
  for (auto* node : nodes) {
    if (node->last_error || node->reachable == false)
      add_event(tx, *node, "recovered", Severity::info,
                node->last_error ? "the BMC answers again (was: " + *node->last_error + ")"
                                 : "the BMC answers again");
    // last_seen is kept to the minute: a node that answers as before is written once a minute,
    // not at every status poll. Each write of a nodes row is a new row version with an entry in
    // every index of the table (last_seen is indexed, for sorting, so no update of it is HOT):
    // measured by bench/fleet_poll, PostgreSQL spent about 1 ms of CPU per status poll doing
    // that, more than the whole service.
    tx.exec_params(
        "UPDATE nodes SET reachable = true, last_error = NULL, last_error_message = NULL, "
        "       last_seen = now() "
        " WHERE id = $1::uuid AND (reachable IS DISTINCT FROM true OR last_error IS NOT NULL "
        "       OR last_error_message IS NOT NULL OR last_seen IS NULL "
        "       OR last_seen < now() - interval '1 minute')",
        node->id);
  }
}

// The lifecycle an inspection decides: a node's first successful full inventory makes it
// available (its Systems behind it too); a failed one while inspecting makes it inspect_failed.
// Later inspections of nodes in other states leave the lifecycle alone.
//
// The node and its Systems are found by id and parent_id; `lifecycle || ''` is there so that the
// lifecycle index is never used for them. Right after a fleet is enrolled, the table's statistics
// still say that few nodes are enrolled or inspecting, and PostgreSQL read all of those through
// that index at every inspection's end (a bitmap AND with the id's): measured with 5,000 nodes
// enrolled at once, a third of PostgreSQL's CPU in the first minute.
void record_inspection_lifecycle(pqxx::transaction_base& tx, const std::string& node_id, bool ok) {
  const auto moved =
      tx.exec_params(ok ? "UPDATE nodes SET lifecycle = 'available', updated_at = now() "
                          " WHERE (id = $1::uuid OR parent_id = $1::uuid) AND retired_at IS NULL "
                          "   AND lifecycle || '' IN ('enrolled', 'inspecting', 'inspect_failed') "
                          "RETURNING id, name"
                        : "UPDATE nodes SET lifecycle = 'inspect_failed', updated_at = now() "
                          " WHERE (id = $1::uuid OR parent_id = $1::uuid) AND retired_at IS NULL "
                          "   AND lifecycle || '' = 'inspecting' "
                          "RETURNING id, name",
                     node_id);
  const std::string to = ok ? "available" : "inspect_failed";
  for (const auto& r : moved) {
    PolledNode node;
    node.id = r[0].as<std::string>();
    node.name = r[1].as<std::string>();
    add_event(tx, node, "lifecycle", ok ? Severity::info : Severity::warning,
              "inspection " + std::string(ok ? "succeeded" : "failed") + ": now " + to,
              {{"to", to}});
  }
}

bool record_poll_result(pqxx::transaction_base& tx, const PollResult& result, bool prepared,
                        std::vector<std::string>& refresh_due) {
  // Most polls of a working fleet find what the last one found. Deciding that on an unlocked read
  // writes nothing at all: no row lock (itself a write to the row and the WAL), no transaction id.
  // A change made meanwhile by another instance is that instance's to record; the next poll
  // compares against it.
  const bool maybe_unchanged =
      std::holds_alternative<StatusReport>(result.report) ||
      (result.outcome().error && !std::holds_alternative<InspectionReport>(result.report));
  if (maybe_unchanged) {
    const auto seen = read_family(tx, result.node_id, FamilyRead::unlocked, prepared);
    if (!seen) return false;
    ResultChanges changes = changes_of(*seen, result);
    // Only last_seen's refresh: one statement for the batch's nodes, no lock, no read again. At
    // every node's once-a-minute refresh this was two more statements per poll (a locked read and
    // an UPDATE), most of what a 10,000-node sweep cost PostgreSQL.
    if (!changes.anything_else) {
      for (auto& id : changes.refresh) refresh_due.push_back(std::move(id));
      return true;
    }
  }
  auto locked = read_family(tx, result.node_id, FamilyRead::locked, prepared);
  if (!locked) return false;
  PolledFamily& family = *locked;
  record_outcome(tx, family, result.outcome());
  const bool inspection = std::holds_alternative<InspectionReport>(result.report);
  if (!result.outcome().ok()) {
    if (inspection) record_inspection_lifecycle(tx, result.node_id, false);
    return true;
  }
  if (const auto* status = std::get_if<StatusReport>(&result.report)) {
    record_statuses(tx, family, status->systems);
  } else if (const auto* sensors = std::get_if<SensorReport>(&result.report)) {
    for (std::size_t i = 0; i < sensors->systems.size(); ++i) {
      const auto& system = sensors->systems[i];
      if (const auto* node = family.for_system(i, system.system_id))
        record_sensors(tx, *node, system.sensors, system.events, system.input_power);
    }
  } else if (const auto* inventory = std::get_if<InspectionReport>(&result.report)) {
    record_inventory(tx, family, *inventory);
    record_inspection_lifecycle(tx, result.node_id, true);
  }
  return true;
}

}  // namespace ironhold::db

#pragma once
// What a BMC posts to its subscriber: a Redfish Event document (DMTF Event schema; its records
// are EventRecords), read into what the inventory keeps. A BMC's document is untrusted input:
// anything malformed is an Error (invalid) naming what is wrong, never an exception of the JSON
// library; fields of the wrong type are treated as absent, as the driver's readers do.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/model/enums.hpp"
#include "inventory/model/hardware.hpp"

namespace ironhold::events {

struct PushedEvent {
  std::string event_type;                  // "Alert", "StatusChange", ... ("Other" when not given)
  std::string event_id;                    // the BMC's id for it (empty when not given)
  std::optional<std::string> occurred_at;  // RFC 3339 UTC, when the BMC's timestamp parses
  Severity severity = Severity::info;      // MessageSeverity, else the deprecated Severity
  std::string message;
  std::string message_id;  // "Registry.Major.Minor.Key"
  nlohmann::json message_args = nlohmann::json::array();
  std::string origin;     // OriginOfCondition's @odata.id
  std::string log_entry;  // LogEntry's @odata.id: the same entry a poll of the log reads
  // A ResourceEvent ResourceStatusChanged{OK,Warning,Critical} about a ComputerSystem: its health
  // now.
  std::optional<Health> health;
  // The System's Id when `origin` is "/redfish/v1/Systems/<Id>" (or below it).
  std::string system_id;
};

struct PushedEvents {
  std::string context;  // the subscription's Context, echoed by the BMC
  std::vector<PushedEvent> events;
};

// At most this many records per document: a BMC batching more is refused, not half-read.
inline constexpr std::size_t kMaxEventsPerDocument = 200;

// Throws Error (invalid) for a document that is not an Event: not an object, no Events array, a
// record that is not an object, more than kMaxEventsPerDocument records.
PushedEvents read_redfish_event(const nlohmann::json& document);

}  // namespace ironhold::events

#pragma once
// Internal to inventory/db/: an event row of a node's history, written inside the caller's
// transaction so that the event and what it reports commit together. The one place that knows the
// events table's columns for writers (sensor-threshold events add their source ids themselves).
#include <nlohmann/json.hpp>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <string_view>

#include "inventory/model/hardware.hpp"

namespace ironhold::db {

struct NewEvent {
  std::optional<std::string> node_id, node_name;  // both absent only for fleet-wide events
  std::string_view kind;  // "lifecycle", "task", "health_change", "tls_pin_mismatch", ...
  Severity severity = Severity::info;
  std::string_view message;
  nlohmann::json details = nlohmann::json::object();
};

void append_event(pqxx::transaction_base& tx, const NewEvent& event);

}  // namespace ironhold::db

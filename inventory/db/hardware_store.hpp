#pragma once
// Reading what the poller recorded: a node's components, firmware (current or with history),
// sensor readings (latest or over a time range) and hardware events, fleet-wide event search, and
// the per-node figures /metrics exports. Results are the API's JSON shapes.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/db/database.hpp"
#include "inventory/model/access.hpp"

namespace ironhold::db {

struct SensorQuery {
  std::optional<std::string> since, until;  // RFC 3339; both absent: the latest readings
  std::vector<std::string> names, kinds;
  int limit = 1000;
  // Keyset position in a history listing: (read_at, sensor) of the last row of the page before.
  std::optional<std::pair<std::string, std::string>> after;
};

struct EventQuery {
  std::optional<std::string> node_id;
  std::vector<std::string> severities, kinds;
  std::optional<std::string> since, until;
  int limit = 100;
  std::optional<std::pair<std::string, long long>> before;  // (occurred_at, id) of the last row
  // The projects whose events the caller may read (set by the API, never from a cursor).
  ProjectScope scope;
};

struct JsonPage {
  nlohmann::json items = nlohmann::json::array();
  // Where the next page starts, when there is one: the last row's keyset position.
  std::optional<nlohmann::json> last;
};

// One node's health figures and its worst (highest) reading per sensor kind.
struct NodeGauges {
  std::string id, name, driver, power_state, health, project;
  std::optional<bool> reachable;
  std::vector<std::tuple<std::string, std::string, double>> sensor_max;  // kind, unit, value
};

class HardwareStore {
 public:
  explicit HardwareStore(Database& db) : db_(db) {}

  // {kind, slot, name, model, manufacturer, serial, part_number, status, firmware_version,
  //  details, since}, ordered by kind then slot.
  nlohmann::json components(const std::string& node_id);
  // {component, name, version, updateable, related_component, since, until}; with history, the
  // versions that were current before too (until set), newest first within a component.
  nlohmann::json firmware(const std::string& node_id, bool history);
  // {name, kind, value, unit, status, time, thresholds?}
  JsonPage sensors(const std::string& node_id, const SensorQuery& query);
  // {id, node_id, node_name, kind, severity, message, details, time, recorded_at}, newest first.
  JsonPage events(const EventQuery& query);
  std::vector<NodeGauges> gauges(const ProjectScope& scope = std::nullopt);

 private:
  Database& db_;
};

}  // namespace ironhold::db

// Sensor readings (latest value and history), hardware log entries and input power of one node.
// Rows go in as one JSON parameter unpacked by jsonb_to_recordset: one statement per table however
// many sensors.
#include <cmath>

#include "inventory/db/db_json.hpp"
#include "inventory/db/poll_record.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::db {
namespace {

nlohmann::json sensor_rows(const std::vector<SensorReading>& sensors) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& s : sensors) {
    // JSON cannot carry NaN or infinities: such a reading is "no value".
    const bool finite = s.value && std::isfinite(*s.value);
    rows.push_back(
        {{"name", s.name},
         {"kind", s.kind},
         {"value", finite ? nlohmann::json(*s.value) : nlohmann::json(nullptr)},
         {"unit", s.unit},
         {"status", to_string(s.status)},
         {"thresholds", s.thresholds.is_object() ? s.thresholds : nlohmann::json::object()}});
  }
  return rows;
}

nlohmann::json event_rows(const std::vector<HardwareEvent>& events) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& e : events) {
    // The BMC's clock text is trusted only once it parses; otherwise the time it was read.
    nlohmann::json occurred = nullptr;
    if (e.occurred_at)
      if (const auto t = parse_rfc3339(*e.occurred_at)) occurred = format_rfc3339(*t);
    const std::string entry_type = e.details.is_object() ? e.details.value("entry_type", "") : "";
    rows.push_back({{"source_id", e.source_id},
                    {"kind", entry_type == "SEL" ? "sel" : "log"},
                    {"severity", to_string(e.severity)},
                    {"message", e.message.empty() ? "(no message)" : e.message},
                    {"details", e.details.is_object() ? e.details : nlohmann::json::object()},
                    {"occurred_at", occurred}});
  }
  return rows;
}

}  // namespace

void record_sensors(pqxx::transaction_base& tx, const PolledNode& node,
                    const std::vector<SensorReading>& sensors,
                    const std::vector<HardwareEvent>& events,
                    const std::optional<InputPower>& input_power) {
  if (input_power && std::isfinite(input_power->watts) && input_power->watts >= 0)
    tx.exec_params("SELECT record_node_power($1::uuid, now(), $2, $3)", node.id, input_power->watts,
                   input_power->source);
  if (!sensors.empty()) {
    const std::string rows = db_json(sensor_rows(sensors));
    tx.exec_params(
        "INSERT INTO sensor_latest (node_id, sensor, kind, value, unit, status, thresholds, "
        "read_at) "
        "SELECT DISTINCT ON (r.name) $1::uuid, r.name, r.kind, r.value, r.unit, r.status, "
        "       coalesce(r.thresholds, '{}'), now() "
        "  FROM jsonb_to_recordset($2::jsonb) AS r(name text, kind text, value double precision, "
        "       unit text, status text, thresholds jsonb) "
        "ON CONFLICT (node_id, sensor) DO UPDATE SET kind = EXCLUDED.kind, value = EXCLUDED.value, "
        "   unit = EXCLUDED.unit, status = EXCLUDED.status, thresholds = EXCLUDED.thresholds, "
        "   read_at = EXCLUDED.read_at",
        node.id, rows);
    tx.exec_params(
        "INSERT INTO sensor_readings (node_id, sensor, kind, value, unit, status, read_at) "
        "SELECT $1::uuid, r.name, r.kind, r.value, r.unit, r.status, now() "
        "  FROM jsonb_to_recordset($2::jsonb) AS r(name text, kind text, value double precision, "
        "       unit text, status text)",
        node.id, rows);
  }
  if (!events.empty()) {
    tx.exec_params(
        "INSERT INTO events (node_id, node_name, kind, severity, message, details, source_id, "
        "occurred_at) "
        "SELECT $1::uuid, $2, r.kind, r.severity, r.message, r.details, r.source_id, "
        "       coalesce(r.occurred_at::timestamptz, now()) "
        "  FROM jsonb_to_recordset($3::jsonb) AS r(source_id text, kind text, severity text, "
        "       message text, details jsonb, occurred_at text) "
        // The BMC may have pushed the entry already (recorded as kind "sel" whatever its log).
        " WHERE NOT EXISTS (SELECT 1 FROM events e "
        "                    WHERE e.node_id = $1::uuid AND e.source_id = r.source_id) "
        "ON CONFLICT (node_id, kind, source_id) WHERE source_id IS NOT NULL DO NOTHING",
        node.id, node.name, db_json(event_rows(events)));
  }
  // After this read's entries, so that what the log held at the first read raises no alert
  // (migration 0017): later entries do.
  tx.exec_params(
      "INSERT INTO node_log_baselines (node_id) VALUES ($1::uuid) ON CONFLICT (node_id) DO NOTHING",
      node.id);
}

}  // namespace ironhold::db

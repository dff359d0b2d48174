#include "inventory/db/hardware_store.hpp"

#include "inventory/db/node_query_sql.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/transaction.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

json json_text_or_null(const pqxx::field& f) {
  return f.is_null() ? json(nullptr) : json(f.as<std::string>());
}
json parsed(const pqxx::field& f) {
  return f.is_null() ? json(nullptr) : json::parse(f.c_str(), nullptr, false);
}

}  // namespace

json HardwareStore::components(const std::string& node_id) {
  return transact(db_, [&](pqxx::work& tx) {
    json items = json::array();
    for (const auto& r : tx.exec_params(
             "SELECT kind, slot, name, model, manufacturer, serial, part_number, status, firmware, "
             "       details::text, rfc3339(valid_from) FROM components "
             " WHERE node_id = $1::uuid AND valid_to IS NULL ORDER BY kind, slot COLLATE \"C\"",
             node_id))
      items.push_back({{"kind", r[0].as<std::string>()},
                       {"slot", r[1].as<std::string>()},
                       {"name", json_text_or_null(r[2])},
                       {"model", json_text_or_null(r[3])},
                       {"manufacturer", json_text_or_null(r[4])},
                       {"serial", json_text_or_null(r[5])},
                       {"part_number", json_text_or_null(r[6])},
                       {"status", r[7].as<std::string>()},
                       {"firmware_version", json_text_or_null(r[8])},
                       {"details", parsed(r[9])},
                       {"since", r[10].as<std::string>()}});
    return items;
  });
}

json HardwareStore::firmware(const std::string& node_id, bool history) {
  return transact(db_, [&](pqxx::work& tx) {
    json items = json::array();
    const std::string current_only = history ? "" : " AND valid_to IS NULL";
    for (const auto& r : tx.exec_params(
             "SELECT component, name, version, updateable, related_component, rfc3339(valid_from), "
             "       rfc3339(valid_to) FROM firmware_records WHERE node_id = $1::uuid" +
                 current_only + " ORDER BY component COLLATE \"C\", valid_from DESC, id DESC",
             node_id))
      items.push_back({{"component", r[0].as<std::string>()},
                       {"name", json_text_or_null(r[1])},
                       {"version", r[2].as<std::string>()},
                       {"updateable", r[3].as<bool>()},
                       {"related_component", json_text_or_null(r[4])},
                       {"since", r[5].as<std::string>()},
                       {"until", json_text_or_null(r[6])}});
    return items;
  });
}

JsonPage HardwareStore::sensors(const std::string& node_id, const SensorQuery& q) {
  SqlParams params;
  const std::string node = params.add(node_id);
  std::string where = "node_id = " + node + "::uuid";
  add_in_list(where, "sensor", q.names, params);
  add_in_list(where, "kind", q.kinds, params);
  const bool latest = !q.since && !q.until;
  std::string sql;
  if (latest) {
    sql =
        "SELECT sensor, kind, value, unit, status, rfc3339(read_at), thresholds::text FROM "
        "sensor_latest "
        "WHERE " +
        where + " ORDER BY sensor COLLATE \"C\"";
  } else {
    if (q.since) where += " AND read_at >= " + params.add(*q.since) + "::timestamptz";
    if (q.until) where += " AND read_at < " + params.add(*q.until) + "::timestamptz";
    if (q.after)
      where += " AND (read_at, sensor COLLATE \"C\") > (" + params.add(q.after->first) +
               "::timestamptz, " + params.add(q.after->second) + ")";
    sql =
        "SELECT sensor, kind, value, unit, status, rfc3339(read_at), NULL FROM sensor_readings "
        "WHERE " +
        where + " ORDER BY read_at, sensor COLLATE \"C\" LIMIT " + std::to_string(q.limit + 1);
  }
  return transact(db_, [&](pqxx::work& tx) {
    JsonPage page;
    const auto rows = tx.exec_params(sql, pqxx::prepare::make_dynamic_params(params.values));
    const std::size_t count = latest ? rows.size() : std::min<std::size_t>(rows.size(), q.limit);
    for (std::size_t i = 0; i < count; ++i) {
      const auto& r = rows[i];
      json item = {{"name", r[0].as<std::string>()},
                   {"kind", r[1].as<std::string>()},
                   {"value", r[2].is_null() ? json(nullptr) : json(r[2].as<double>())},
                   {"unit", json_text_or_null(r[3])},
                   {"status", json_text_or_null(r[4])},
                   {"time", r[5].as<std::string>()}};
      if (!r[6].is_null()) item["thresholds"] = parsed(r[6]);
      page.items.push_back(std::move(item));
    }
    if (!latest && rows.size() > count)
      page.last = json{{"t", rows[count - 1][5].as<std::string>()},
                       {"s", rows[count - 1][0].as<std::string>()}};
    return page;
  });
}

JsonPage HardwareStore::events(const EventQuery& q) {
  SqlParams params;
  std::string where = "TRUE";
  if (q.node_id) where += " AND node_id = " + params.add(*q.node_id) + "::uuid";
  add_in_list(where, "severity", q.severities, params);
  add_in_list(where, "kind", q.kinds, params);
  if (q.scope) {
    if (q.scope->empty()) where += " AND FALSE";
    add_in_list(where, "project", *q.scope, params);
  }
  if (q.since) where += " AND occurred_at >= " + params.add(*q.since) + "::timestamptz";
  if (q.until) where += " AND occurred_at < " + params.add(*q.until) + "::timestamptz";
  if (q.before)
    where += " AND (occurred_at, id) < (" + params.add(q.before->first) + "::timestamptz, " +
             params.add(std::to_string(q.before->second)) + "::bigint)";
  const std::string sql =
      "SELECT id, node_id, node_name, kind, severity, message, details::text, "
      "rfc3339(occurred_at), "
      "       rfc3339(recorded_at) FROM events WHERE " +
      where + " ORDER BY occurred_at DESC, id DESC LIMIT " + std::to_string(q.limit + 1);
  return transact(db_, [&](pqxx::work& tx) {
    JsonPage page;
    const auto rows = tx.exec_params(sql, pqxx::prepare::make_dynamic_params(params.values));
    const std::size_t count = std::min<std::size_t>(rows.size(), q.limit);
    for (std::size_t i = 0; i < count; ++i) {
      const auto& r = rows[i];
      page.items.push_back({{"id", r[0].as<long long>()},
                            {"node_id", json_text_or_null(r[1])},
                            {"node_name", json_text_or_null(r[2])},
                            {"kind", r[3].as<std::string>()},
                            {"severity", r[4].as<std::string>()},
                            {"message", r[5].as<std::string>()},
                            {"details", parsed(r[6])},
                            {"time", r[7].as<std::string>()},
                            {"recorded_at", r[8].as<std::string>()}});
    }
    if (rows.size() > count)
      page.last = json{{"t", rows[count - 1][7].as<std::string>()},
                       {"i", rows[count - 1][0].as<long long>()}};
    return page;
  });
}

std::vector<NodeGauges> HardwareStore::gauges(const ProjectScope& scope) {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<NodeGauges> out;
    std::map<std::string, std::size_t> index;
    for (const auto& r : tx.exec_params(
             "SELECT id, name, driver, power_state, health, reachable, project FROM nodes "
             "WHERE retired_at IS NULL AND ($1::text[] IS NULL OR project = ANY($1::text[])) "
             "ORDER BY name COLLATE \"C\"",
             nullable(scope_array(scope)))) {
      NodeGauges g;
      g.id = r[0].as<std::string>();
      g.name = r[1].as<std::string>();
      g.driver = r[2].as<std::string>();
      g.power_state = r[3].as<std::string>();
      g.health = r[4].as<std::string>();
      if (!r[5].is_null()) g.reachable = r[5].as<bool>();
      g.project = r[6].as<std::string>();
      index[g.id] = out.size();
      out.push_back(std::move(g));
    }
    for (const auto& r :
         tx.exec("SELECT node_id, kind, coalesce(unit, ''), max(value) FROM sensor_latest "
                 "WHERE value IS NOT NULL GROUP BY node_id, kind, coalesce(unit, '')")) {
      const auto it = index.find(r[0].as<std::string>());
      if (it != index.end())
        out[it->second].sensor_max.emplace_back(r[1].as<std::string>(), r[2].as<std::string>(),
                                                r[3].as<double>());
    }
    return out;
  });
}

}  // namespace ironhold::db

#include "inventory/db/node_query_sql.hpp"

#include <nlohmann/json.hpp>

namespace ironhold::db {

void add_in_list(std::string& where, const char* column, const std::vector<std::string>& values,
                 SqlParams& params) {
  if (values.empty()) return;
  where += std::string(" AND ") + column + " IN (";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) where += ", ";
    where += params.add(values[i]);
  }
  where += ")";
}

std::string node_where(const NodeFilter& f, SqlParams& params) {
  std::string where = f.includes_retired() ? "TRUE" : "n.retired_at IS NULL";
  add_in_list(where, "n.id::text", f.ids, params);
  add_in_list(where, "n.name", f.names, params);
  add_in_list(where, "n.source", f.source, params);
  add_in_list(where, "n.driver", f.driver, params);
  add_in_list(where, "n.health", f.health, params);
  add_in_list(where, "n.power_state", f.power_state, params);
  add_in_list(where, "n.lifecycle", f.lifecycle, params);
  add_in_list(where, "(n.hardware ->> 'gpu_model')", f.gpu_model, params);
  if (f.maintenance)
    where += " AND n.maintenance = " + params.add(*f.maintenance ? "true" : "false") + "::boolean";
  for (const auto& [key, value] : f.tags)
    where += " AND n.tags @> " + params.add(nlohmann::json{{key, value}}.dump()) + "::jsonb";
  if (f.site) where += " AND n.site = " + params.add(*f.site);
  if (f.rack) where += " AND n.rack = " + params.add(*f.rack);
  if (f.q) where += " AND strpos(lower(n.name), lower(" + params.add(*f.q) + ")) > 0";
  add_in_list(where, "n.project", f.project, params);
  if (f.scope) {
    if (f.scope->empty()) return where + " AND FALSE";
    add_in_list(where, "n.project", *f.scope, params);
  }
  return where;
}

SortSql sort_sql(NodeSortField field) {
  switch (field) {
    case NodeSortField::name:
      return {"n.name COLLATE \"C\"", "n.name", "::text COLLATE \"C\""};
    case NodeSortField::health:
      // By severity, worst first when ascending: critical, warning, unknown, ok.
      return {
          "(CASE n.health WHEN 'critical' THEN 0 WHEN 'warning' THEN 1 WHEN 'unknown' THEN 2 ELSE "
          "3 END)",
          "(CASE n.health WHEN 'critical' THEN 0 WHEN 'warning' THEN 1 WHEN 'unknown' THEN 2 ELSE "
          "3 END)::text",
          "::int"};
    case NodeSortField::power_state:
      return {"n.power_state COLLATE \"C\"", "n.power_state", "::text COLLATE \"C\""};
    case NodeSortField::last_seen:
      // Never-seen nodes sort as the oldest.
      return {"coalesce(n.last_seen, '-infinity'::timestamptz)",
              "coalesce(rfc3339(n.last_seen), '-infinity')", "::timestamptz"};
    case NodeSortField::created_at:
      return {"n.created_at", "rfc3339(n.created_at)", "::timestamptz"};
  }
  return {"n.name COLLATE \"C\"", "n.name", "::text COLLATE \"C\""};
}

}  // namespace ironhold::db

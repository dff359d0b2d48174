#include "inventory/db/capacity_store.hpp"

#include "inventory/db/row_values.hpp"
#include "inventory/db/transaction.hpp"

namespace ironhold::db {
namespace capacity_sql {

// The versions overlapping [$1, $2), clipped to it (and to now: an open version has lasted until
// now, not until the period's end), with their GPUs and their exclusive state. $3: the scope.
constexpr const char* kVersions =
    "SELECT nv.*, g.gpus, "
    "  CASE WHEN nv.maintenance THEN 'maintenance' "
    "       WHEN nv.lifecycle LIKE '%\\_failed' THEN 'failed' "
    "       WHEN nv.power_state IN ('on', 'off') THEN nv.power_state "
    "       ELSE 'unknown' END AS state, "
    "  greatest(nv.valid_from, $1::timestamptz) AS s, "
    "  least(coalesce(nv.valid_to, now()), $2::timestamptz) AS e "
    "FROM node_versions nv CROSS JOIN LATERAL (SELECT CASE "
    "    WHEN jsonb_typeof(nv.hardware -> 'gpu_count') = 'number' "
    "    THEN (nv.hardware ->> 'gpu_count')::numeric ELSE 0 END AS gpus) g "
    "WHERE nv.valid_from < $2::timestamptz "
    "  AND (nv.valid_to IS NULL OR nv.valid_to > $1::timestamptz) "
    "  AND nv.retired_at IS NULL AND nv.lifecycle <> 'retired' AND g.gpus > 0 "
    "  AND ($3::text[] IS NULL OR nv.project = ANY($3::text[]))";

int state_index(const std::string& state) {
  for (int i = 0; i < 5; ++i)
    if (state == kCapacityStates[i]) return i;
  return 2;  // unknown
}

std::string key_columns(const CapacityQuery& q, const char* table) {
  std::string out;
  for (auto d : q.group_by) {
    std::string expr = capacity_dimension_sql(d);
    // The expressions name nv; the clipped versions are v.
    if (std::string(table) != "nv")
      for (std::size_t at; (at = expr.find("nv.")) != std::string::npos;)
        expr.replace(at, 3, std::string(table) + ".");
    out += expr + ", ";
  }
  return out;
}

std::string group_list(std::size_t dimensions) {
  std::string out;
  for (std::size_t i = 1; i <= dimensions; ++i) out += std::to_string(i) + ", ";
  return out;
}

CapacityGroup& group_of(std::map<std::vector<std::optional<std::string>>, CapacityGroup>& groups,
                        const CapacityQuery& q, const pqxx::row& row, std::size_t buckets) {
  std::vector<std::optional<std::string>> key;
  for (std::size_t i = 0; i < q.group_by.size(); ++i)
    key.push_back(optional_text(row[static_cast<int>(i)]));
  auto [it, inserted] = groups.try_emplace(key);
  if (inserted) {
    for (std::size_t i = 0; i < q.group_by.size(); ++i) it->second.key[q.group_by[i]] = key[i];
    it->second.series.resize(buckets);
  }
  return it->second;
}

}  // namespace capacity_sql

using namespace capacity_sql;

const char* capacity_versions_sql() {
  return kVersions;
}

const char* capacity_dimension_sql(CapacityDimension d) {
  switch (d) {
    case CapacityDimension::gpu_model:
      return "(nv.hardware ->> 'gpu_model')";
    case CapacityDimension::source:
      return "nv.source";
    case CapacityDimension::site:
      return "nv.site";
    case CapacityDimension::project:
      return "nv.project";
    case CapacityDimension::provider:
      return "nv.provider";
    case CapacityDimension::model:
      return "nv.model";
  }
  return "NULL";
}

CapacityReport CapacityStore::report(const CapacityQuery& q, const ProjectScope& scope) {
  CapacityReport report;
  report.query = q;
  for (SystemTime t = q.from; t < q.to; t += q.step) report.buckets.push_back(t);
  const std::size_t dims = q.group_by.size();
  const std::string from = format_rfc3339(q.from), to = format_rfc3339(q.to);
  const std::string step = std::to_string(q.step.count()) + " seconds";
  const auto projects = scope_array(scope);
  // GPU-hours per group, bucket, state and power, from each version's overlap with each bucket.
  const std::string hours_sql =
      std::string("WITH v AS (") + kVersions +
      "), b AS (SELECT row_number() OVER (ORDER BY t) - 1 AS i, t AS bs, "
      "  least(t + $4::interval, $2::timestamptz) AS be "
      "  FROM generate_series($1::timestamptz, $2::timestamptz - interval '1 microsecond', "
      "                       $4::interval) t) "
      "SELECT " +
      key_columns(q, "v") +
      "b.i, v.state, v.power_state = 'on', "
      "  sum(v.gpus * extract(epoch FROM least(v.e, b.be) - greatest(v.s, b.bs)))::float8 / 3600 "
      "FROM v JOIN b ON v.s < b.be AND v.e > b.bs AND v.e > v.s "
      "GROUP BY " +
      group_list(dims) + "b.i, v.state, v.power_state = 'on'";
  // GPUs in service at the period's end (or now), and of those on a node powered on.
  const std::string at_end_sql =
      "SELECT " + key_columns(q, "nv") +
      "  coalesce(sum(g.gpus), 0)::bigint, coalesce(sum(g.gpus) FILTER (WHERE nv.power_state = "
      "'on'), 0)::bigint "
      "FROM node_versions nv CROSS JOIN LATERAL (SELECT CASE "
      "    WHEN jsonb_typeof(nv.hardware -> 'gpu_count') = 'number' "
      "    THEN (nv.hardware ->> 'gpu_count')::numeric ELSE 0 END AS gpus) g "
      "WHERE nv.valid_from <= least($1::timestamptz, now()) "
      "  AND (nv.valid_to IS NULL OR nv.valid_to > least($1::timestamptz, now())) "
      "  AND nv.retired_at IS NULL AND nv.lifecycle <> 'retired' AND g.gpus > 0 "
      "  AND ($2::text[] IS NULL OR nv.project = ANY($2::text[])) " +
      (dims ? "GROUP BY " + group_list(dims).substr(0, group_list(dims).size() - 2) : "");
  std::map<std::vector<std::optional<std::string>>, CapacityGroup> groups;
  report.totals.series.resize(report.buckets.size());
  transact(db_, [&](pqxx::work& tx) {
    groups.clear();
    report.totals.hours = {};
    report.totals.series.assign(report.buckets.size(), {});
    report.totals.gpus_installed = report.totals.gpus_powered_on = 0;
    const int d = static_cast<int>(dims);
    for (const auto& row : tx.exec_params(hours_sql, from, to, nullable(projects), step)) {
      const auto bucket = row[d].as<std::size_t>();
      const int state = state_index(row[d + 1].as<std::string>());
      const bool on = row[d + 2].as<bool>();
      const double hours = row[d + 3].as<double>();
      if (bucket >= report.buckets.size()) continue;
      CapacityGroup& g = group_of(groups, q, row, report.buckets.size());
      for (CapacityGroup* target : {&g, &report.totals}) {
        target->hours.by_state[state] += hours;
        target->series[bucket].by_state[state] += hours;
        if (on) {
          target->hours.powered_on += hours;
          target->series[bucket].powered_on += hours;
        }
      }
    }
    for (const auto& row : tx.exec_params(at_end_sql, to, nullable(projects))) {
      CapacityGroup& g = group_of(groups, q, row, report.buckets.size());
      g.gpus_installed += row[d].as<long long>();
      g.gpus_powered_on += row[d + 1].as<long long>();
      report.totals.gpus_installed += row[d].as<long long>();
      report.totals.gpus_powered_on += row[d + 1].as<long long>();
    }
  });
  for (auto& [key, g] : groups) report.groups.push_back(std::move(g));
  return report;
}

}  // namespace ironhold::db

#include "inventory/db/alert_evaluation.hpp"

#include <map>
#include <set>

#include "inventory/db/alert_notify.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/transaction.hpp"

namespace ironhold::db {
namespace {

// Held for the pass's transaction: one instance evaluates, the others skip.
constexpr long long kEvaluationLock = 0x1A1E47;

// The sources this pass owns: they fire while their condition holds and resolve when it ends.
// hardware_log and task_failed alerts come from events (migration 0016) and resolve by age.
const std::set<std::string> kStateSources = {
    "health",      "unreachable",       "auth_failed",    "tls_pin_mismatch", "sensor",
    "sensor_rule", "cloud_unreachable", "rollout_halted", "gpu_missing"};

struct Problem {
  std::string fingerprint, source, severity;
  std::optional<std::string> node_id, node_name, project;
  std::string summary, details;
};

// Every problem that holds now, as one statement. A column per field, the same in every branch.
const char* const kProblems = R"SQL(
SELECT 'health:' || n.id, 'health', n.health, n.id::text, n.name, n.project,
       n.name || ' reports ' || n.health || ' health',
       jsonb_build_object('health', n.health)::text
  FROM nodes n WHERE n.retired_at IS NULL AND n.health IN ('warning', 'critical')
UNION ALL
SELECT 'unreachable:' || n.id, 'unreachable', 'critical', n.id::text, n.name, n.project,
       n.name || ': its BMC does not answer (' || coalesce(n.last_error, 'no answer') || ')',
       jsonb_build_object('failures', s.failures, 'error', n.last_error,
                          'message', n.last_error_message)::text
  FROM nodes n JOIN poll_schedule s ON s.node_id = n.id AND s.kind = 'status'
 WHERE n.retired_at IS NULL AND n.reachable = false AND s.failures >= $1
   AND coalesce(n.last_error, '') <> 'tls_pin_mismatch'
UNION ALL
SELECT 'auth_failed:' || n.id, 'auth_failed', 'warning', n.id::text, n.name, n.project,
       n.name || ': the BMC refuses the credentials Ironhold holds',
       jsonb_build_object('message', n.last_error_message)::text
  FROM nodes n WHERE n.retired_at IS NULL AND n.last_error = 'auth_failed'
UNION ALL
SELECT 'tls_pin_mismatch:' || n.id, 'tls_pin_mismatch', 'critical', n.id::text, n.name, n.project,
       n.name || ': the BMC presents a certificate other than the pinned one',
       jsonb_build_object('pinned', n.tls_fingerprint, 'message', n.last_error_message)::text
  FROM nodes n WHERE n.retired_at IS NULL AND n.last_error = 'tls_pin_mismatch'
UNION ALL
SELECT 'sensor:' || l.node_id || ':' || l.sensor, 'sensor', l.status, n.id::text, n.name,
       n.project,
       n.name || ': ' || l.sensor || ' is ' || l.status || ' by the BMC''s thresholds',
       jsonb_build_object('sensor', l.sensor, 'kind', l.kind, 'value', l.value, 'unit', l.unit,
                          'thresholds', l.thresholds)::text
  FROM sensor_latest l JOIN nodes n ON n.id = l.node_id
 WHERE n.retired_at IS NULL AND l.status IN ('warning', 'critical')
UNION ALL
SELECT x.fp, 'sensor_rule', x.sev, x.node_id::text, x.name, x.project,
       x.name || ': ' || x.sensor || ' over its ' || x.sev || ' level of ' ||
       CASE x.sev WHEN 'critical' THEN x.critical ELSE x.warning END::text ||
       coalesce(' ' || x.unit, ''),
       jsonb_build_object('sensor', x.sensor, 'kind', x.kind, 'value', x.value, 'unit', x.unit,
                          'warning', x.warning, 'critical', x.critical,
                          'hysteresis', x.hysteresis)::text
  FROM (
    SELECT 'sensor_rule:' || l.node_id || ':' || l.sensor AS fp, l.node_id, n.name, n.project,
           l.sensor, l.kind, l.value, l.unit, r.warning, r.critical, r.hysteresis,
           -- Over a level fires; below it the open alert holds until the level less hysteresis.
           CASE WHEN r.critical IS NOT NULL AND l.value >= r.critical THEN 'critical'
                WHEN a.severity = 'critical' AND r.critical IS NOT NULL
                     AND l.value > r.critical - r.hysteresis THEN 'critical'
                WHEN r.warning IS NOT NULL AND l.value >= r.warning THEN 'warning'
                WHEN a.severity IS NOT NULL
                     AND l.value > coalesce(r.warning, r.critical) - r.hysteresis THEN 'warning'
           END AS sev
      -- Only readings at or over the lowest level any rule of their kind sets, less its
      -- hysteresis, can fire or hold an alert: the rest are left in the scan, before the joins
      -- (a scratch database with 10,000 nodes and 560,000 readings: the whole statement took
      -- 680 ms with every reading joined first, 150 ms so).
      FROM (SELECT kind, min(least(coalesce(warning, critical), coalesce(critical, warning))
                             - hysteresis) AS lowest
              FROM alert_sensor_rules GROUP BY kind) k
      JOIN sensor_latest l ON l.kind = k.kind AND l.value >= k.lowest
      JOIN nodes n ON n.id = l.node_id
      JOIN LATERAL (SELECT * FROM alert_sensor_rules r
                     WHERE r.kind = l.kind AND (r.model IS NULL OR r.model = n.model)
                     ORDER BY r.model IS NULL LIMIT 1) r ON true
      LEFT JOIN alerts a ON a.fingerprint = 'sensor_rule:' || l.node_id || ':' || l.sensor
                        AND a.state <> 'resolved'
     WHERE n.retired_at IS NULL) x
 WHERE x.sev IS NOT NULL
UNION ALL
SELECT 'gpu_missing:' || n.id, 'gpu_missing', 'critical', n.id::text, n.name, n.project,
       n.name || ': ' || (n.hardware ->> 'gpu_count') || ' of the ' || n.gpus_expected ||
       ' GPUs it had when first inspected answer',
       jsonb_build_object('expected', n.gpus_expected, 'seen', n.hardware -> 'gpu_count')::text
  FROM nodes n
 WHERE n.retired_at IS NULL AND n.gpus_expected IS NOT NULL
   AND jsonb_typeof(n.hardware -> 'gpu_count') = 'number'
   AND (n.hardware ->> 'gpu_count')::numeric < n.gpus_expected
UNION ALL
SELECT 'cloud_unreachable:' || a.id, 'cloud_unreachable', 'warning', NULL, NULL, a.project,
       'cloud account ' || a.name || ': its syncs fail (' || coalesce(a.last_error, '?') || ')',
       jsonb_build_object('cloud_account_id', a.id, 'cloud_account', a.name,
                          'error', a.last_error, 'message', a.last_error_message)::text
  FROM cloud_accounts a WHERE a.deleted_at IS NULL AND a.sync_failures >= $2
UNION ALL
SELECT 'rollout_halted:' || r.id, 'rollout_halted', 'warning', NULL, NULL, r.project,
       'firmware rollout of ' || r.image_name || ' halted: ' || coalesce(r.halt_reason, '?'),
       jsonb_build_object('rollout_id', r.id, 'image', r.image_name,
                          'reason', r.halt_reason)::text
  FROM firmware_rollouts r WHERE r.state = 'halted'
)SQL";

std::vector<Problem> current_problems(pqxx::work& tx, const AlertPolicy& policy) {
  std::vector<Problem> out;
  for (const auto& r : tx.exec_params(kProblems, policy.unreachable_after, policy.cloud_failures))
    out.push_back({r[0].as<std::string>(), r[1].as<std::string>(), r[2].as<std::string>(),
                   optional_text(r[3]), optional_text(r[4]), optional_text(r[5]),
                   r[6].as<std::string>(), r[7].as<std::string>()});
  return out;
}

struct OpenAlert {
  long long id = 0;
  std::string source, severity, summary;
};

std::map<std::string, OpenAlert> open_alerts(pqxx::work& tx) {
  std::map<std::string, OpenAlert> out;
  for (const auto& r : tx.exec("SELECT fingerprint, id, source, severity, summary FROM alerts "
                               "WHERE state <> 'resolved' FOR UPDATE"))
    out[r[0].as<std::string>()] = {r[1].as<long long>(), r[2].as<std::string>(),
                                   r[3].as<std::string>(), r[4].as<std::string>()};
  return out;
}

// A problem with no open alert: a recently resolved one fires again (counting a flap), otherwise
// a new one.
void fire(pqxx::work& tx, const Problem& p, const AlertPolicy& policy, AlertPass& pass) {
  const auto reopened = tx.exec_params(
      "WITH last AS (SELECT id, resolved_at, flaps FROM alerts "
      "  WHERE fingerprint = $1 AND state = 'resolved' "
      "    AND resolved_at > now() - make_interval(secs => $8) "
      "  ORDER BY resolved_at DESC LIMIT 1) "
      "UPDATE alerts a SET state = 'firing', severity = $2, summary = $3, details = $4::jsonb, "
      "       resolved_at = NULL, acknowledged_by = NULL, acknowledged_at = NULL, "
      "       last_seen = now(), occurrences = a.occurrences + 1, flaps = last.flaps + 1, "
      "       flapping = last.flaps + 1 >= $9, notify_pending = 'firing', updated_at = now(), "
      "       node_id = $5::uuid, node_name = $6, project = $7 "
      "  FROM last WHERE a.id = last.id RETURNING a.id",
      p.fingerprint, p.severity, p.summary, p.details, nullable(p.node_id), nullable(p.node_name),
      nullable(p.project), static_cast<double>(policy.flap_window.count()), policy.flaps_to_damp);
  ++pass.fired;
  if (!reopened.empty()) return;
  tx.exec_params(
      "INSERT INTO alerts (fingerprint, source, severity, node_id, node_name, project, summary, "
      "                    details, notify_pending) "
      "VALUES ($1, $2, $3, $4::uuid, $5, $6, $7, $8::jsonb, 'firing')",
      p.fingerprint, p.source, p.severity, nullable(p.node_id), nullable(p.node_name),
      nullable(p.project), p.summary, p.details);
}

// An open alert whose problem holds: a change of severity is news. The rest only keep fresh, at
// most once a minute, collected into `unchanged` for one UPDATE of them all: a pass over
// thousands of open alerts (a fifth of a 10,000-node fleet unreachable) is then one statement,
// not a round trip each.
void refresh(pqxx::work& tx, const OpenAlert& open, const Problem& p, AlertPass& pass,
             std::vector<long long>& unchanged) {
  const bool escalated = open.severity == "warning" && p.severity == "critical";
  if (open.severity != p.severity || open.summary != p.summary) {
    tx.exec_params(
        "UPDATE alerts SET severity = $2, summary = $3, details = $4::jsonb, last_seen = now(), "
        "       updated_at = now(), "
        "       notify_pending = CASE WHEN $5 THEN 'firing' ELSE notify_pending END "
        " WHERE id = $1",
        open.id, p.severity, p.summary, p.details, escalated);
    ++pass.updated;
    return;
  }
  unchanged.push_back(open.id);
}

void keep_fresh(pqxx::work& tx, const std::vector<long long>& ids) {
  if (ids.empty()) return;
  std::string array = "{";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) array += ',';
    array += std::to_string(ids[i]);
  }
  array += '}';
  tx.exec_params(
      "UPDATE alerts SET last_seen = now() "
      " WHERE id = ANY($1::bigint[]) AND last_seen < now() - interval '1 min'",
      array);
}

void resolve(pqxx::work& tx, long long id, AlertPass& pass) {
  tx.exec_params(
      "UPDATE alerts SET state = 'resolved', resolved_at = now(), updated_at = now(), "
      "       notify_pending = 'resolved' WHERE id = $1",
      id);
  ++pass.resolved;
}

}  // namespace

AlertPass evaluate_alerts(Database& db, const AlertPolicy& policy) {
  return transact(db, [&](pqxx::work& tx) {
    AlertPass pass;
    if (!tx.exec_params1("SELECT pg_try_advisory_xact_lock($1)", kEvaluationLock)[0].as<bool>())
      return pass;
    pass.ran = true;
    const std::vector<Problem> problems = current_problems(tx, policy);
    std::map<std::string, OpenAlert> open = open_alerts(tx);
    std::set<std::string> holding;
    std::vector<long long> unchanged;
    for (const auto& p : problems) {
      if (!holding.insert(p.fingerprint).second) continue;  // one row per problem
      const auto it = open.find(p.fingerprint);
      if (it == open.end())
        fire(tx, p, policy, pass);
      else
        refresh(tx, it->second, p, pass, unchanged);
    }
    keep_fresh(tx, unchanged);
    for (const auto& [fingerprint, alert] : open)
      if (kStateSources.count(alert.source) && !holding.count(fingerprint))
        resolve(tx, alert.id, pass);
    // One-shot alerts end by age; a flapping alert that stayed put for the window is calm again.
    pass.resolved += static_cast<int>(
        tx.exec_params("UPDATE alerts SET state = 'resolved', resolved_at = now(), "
                       "       updated_at = now(), notify_pending = 'resolved' "
                       " WHERE state <> 'resolved' AND source IN ('hardware_log', 'task_failed') "
                       "   AND last_seen < now() - make_interval(secs => $1)",
                       static_cast<double>(policy.one_shot_ttl.count()))
            .affected_rows());
    tx.exec_params(
        "UPDATE alerts SET flapping = false, flaps = 0, updated_at = now() "
        " WHERE flapping AND updated_at < now() - make_interval(secs => $1)",
        static_cast<double>(policy.flap_window.count()));
    pass.notifications = write_notifications(tx);
    return pass;
  });
}

}  // namespace ironhold::db

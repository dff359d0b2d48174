#include "inventory/db/alert_notify.hpp"

#include <set>

#include "inventory/db/node_query_sql.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/error.hpp"
#include "inventory/model/node_query.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::db {
namespace {

// The nodes some active silence selects, each silence within its own project.
std::set<std::string> silenced_nodes(pqxx::work& tx) {
  std::set<std::string> out;
  for (const auto& s :
       tx.exec("SELECT id, project, selector::text FROM alert_silences "
               "WHERE expired_at IS NULL AND starts_at <= now() AND ends_at > now()")) {
    NodeFilter filter;
    try {
      filter = parse_node_selector(nlohmann::json::parse(s[2].c_str()));
    } catch (const std::exception& e) {
      // Validated when it was made; a row edited by hand since must not stop every alert.
      log::warn("an alert silence has a selector that no longer parses; ignored",
                {{"silence", s[0].as<std::string>()}, {"error", e.what()}});
      continue;
    }
    filter.scope = std::vector<std::string>{s[1].as<std::string>()};
    SqlParams params;
    const std::string where = node_where(filter, params);
    for (const auto& n : tx.exec_params("SELECT n.id FROM nodes n WHERE " + where,
                                        pqxx::prepare::make_dynamic_params(params.values)))
      out.insert(n[0].as<std::string>());
  }
  return out;
}

}  // namespace

int write_notifications(pqxx::work& tx) {
  const auto pending = tx.exec(
      "SELECT a.id, a.node_id::text, a.flapping, coalesce(n.maintenance, false) "
      "  FROM alerts a LEFT JOIN nodes n ON n.id = a.node_id "
      " WHERE a.notify_pending IS NOT NULL FOR UPDATE OF a SKIP LOCKED");
  if (pending.empty()) return 0;
  const std::set<std::string> silenced = silenced_nodes(tx);
  int written = 0;
  for (const auto& a : pending) {
    const long long id = a[0].as<long long>();
    const auto node = optional_text(a[1]);
    const bool suppressed =
        a[2].as<bool>() || a[3].as<bool>() || (node && silenced.count(*node) > 0);
    if (!suppressed)
      written += static_cast<int>(
          tx.exec_params("INSERT INTO alert_outbox (receiver_id, alert_id, status, payload) "
                         "SELECT r.id, a.id, a.notify_pending, to_jsonb(a) - 'notify_pending' "
                         "  FROM alerts a JOIN alert_receivers r ON r.deleted_at IS NULL "
                         "   AND (r.project IS NULL OR r.project = a.project) "
                         "   AND (r.min_severity = 'warning' OR a.severity = 'critical') "
                         " WHERE a.id = $1",
                         id)
              .affected_rows());
    tx.exec_params("UPDATE alerts SET notify_pending = NULL WHERE id = $1", id);
  }
  return written;
}

}  // namespace ironhold::db

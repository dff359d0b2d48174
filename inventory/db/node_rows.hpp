#pragma once
// Internal to inventory/db/: the column list every node query selects, and the row → Node mapping.
#include <pqxx/pqxx>

#include "inventory/db/row_values.hpp"
#include "inventory/model/node.hpp"

namespace ironhold::db {

// Columns 0..35 of a node row; callers may select more after these.
inline constexpr const char* node_columns =
    "n.id, n.name, n.source, n.driver, n.endpoint, n.options::text, n.site, n.rack, n.unit, "
    "n.tags::text, n.manufacturer, n.model, n.serial, n.asset_tag, n.provider_id, n.power_state, "
    "n.health, n.reachable, n.last_error, n.lifecycle, n.maintenance, n.maintenance_reason, "
    "EXISTS (SELECT 1 FROM node_credentials c WHERE c.node_id = n.id), rfc3339(n.last_seen), "
    "rfc3339(n.created_at), rfc3339(n.updated_at), rfc3339(n.retired_at), n.hardware::text, "
    "n.identity::text, n.last_error_message, n.tls_fingerprint, n.parent_id, n.system_id, "
    "rfc3339(n.last_inspected), n.cloud_account_id, n.project";
inline constexpr int node_column_count = 36;

Node node_from_row(const pqxx::row& row);

}  // namespace ironhold::db

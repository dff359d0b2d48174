#pragma once
// Internal to inventory/db/: the column list every node query selects, and the row → Node mapping.
#include <pqxx/pqxx>

#include "inventory/db/row_values.hpp"
#include "inventory/model/node.hpp"

namespace ironhold::db {

// Columns 0..37 of a node row; callers may select more after these. The timestamps come as UTC
// timestamps without a zone, which PostgreSQL writes several times faster than rfc3339() formats
// them (a list of 1,000 nodes spent 2 of its 11 ms there); node_rows.cpp puts them in RFC 3339.
inline constexpr const char* node_columns =
    "n.id, n.name, n.source, n.driver, n.endpoint, n.options::text, n.site, n.rack, n.unit, "
    "n.tags::text, n.manufacturer, n.model, n.serial, n.asset_tag, n.provider_id, n.power_state, "
    "n.health, n.reachable, n.last_error, n.lifecycle, n.maintenance, n.maintenance_reason, "
    "n.credentials_set, "
    "n.last_seen AT TIME ZONE 'UTC', n.created_at AT TIME ZONE 'UTC', "
    "n.updated_at AT TIME ZONE 'UTC', n.retired_at AT TIME ZONE 'UTC', n.hardware::text, "
    "n.identity::text, n.last_error_message, n.tls_fingerprint, n.parent_id, n.system_id, "
    "n.last_inspected AT TIME ZONE 'UTC', n.cloud_account_id, n.project, "
    "n.gpus_expected, n.ssh_host_key";
inline constexpr int node_column_count = 38;

Node node_from_row(const pqxx::row& row);

// The node of a row as the API's JSON text, what append_json(node_from_row(row)) writes, without
// building the Node: the jsonb columns are copied as PostgreSQL wrote them (compacted), so their
// objects' members come in jsonb's order rather than sorted; parsed, the two are equal.
void append_row_json(std::string& out, const pqxx::row& row);

}  // namespace ironhold::db

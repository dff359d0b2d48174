#pragma once
// Internal to inventory/db/: the columns every cloud account query selects (with the account's
// node count and the sealed credentials), the row → CloudAccount mapping, and opening the sealed
// credentials for a driver.
#include <pqxx/pqxx>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/drivers/cloud_driver.hpp"
#include "inventory/model/cloud_account.hpp"

namespace ironhold::db {

inline constexpr const char* account_columns =
    "a.id, a.name, a.provider, a.endpoint, a.region, a.options::text, a.sync_interval_s, "
    "rfc3339(a.last_sync_at), rfc3339(a.last_sync_started), rfc3339(a.next_sync), a.last_error, "
    "a.last_error_message, rfc3339(a.created_at), rfc3339(a.updated_at), "
    "a.last_sync_duration_ms, a.sync_failures, "
    "coalesce(a.lease_expires > now(), false) AS syncing, "
    "(SELECT count(*) FROM nodes n WHERE n.cloud_account_id = a.id AND n.retired_at IS NULL) "
    "  AS node_count, "
    "encode(a.sealed, 'hex') AS sealed_hex, a.project";

// The account; its credentials are opened to tell their kind and identity, and kept in
// spec.credentials only with `keep_credentials` (for a driver). Throws Error(internal) when the
// sealed value is corrupt or sealed under another key.
CloudAccount account_from_row(const crypto::SecretBox& box, const pqxx::row& row,
                              bool keep_credentials);

// What a driver needs of an account whose credentials are opened.
CloudAccountTarget target_of(const CloudAccount& account);

}  // namespace ironhold::db

#pragma once
// Internal to inventory/db/: the BMC half of a DriverTarget from the four columns every query that
// talks to a BMC selects in this order: endpoint, options::text, tls_fingerprint, and the node's
// sealed credentials as hex. The node's id and name must be set first (the credentials are sealed
// to the id; a failure to open them is logged with the name).
#include <pqxx/pqxx>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::db {

// Columns first .. first+3 of `row`. Credentials that cannot be opened are left out and logged:
// the call still runs (a service root needs none), the BMC refuses, and the node shows
// auth_failed while the log says why.
void read_bmc_columns(DriverTarget& target, const pqxx::row& row, pqxx::row::size_type first,
                      const crypto::SecretBox& box);

}  // namespace ironhold::db

#pragma once
// Re-sealing every secret at rest (BMC credentials, cloud credentials, tasks' write-only
// parameters) under the current master key, for `ironhold keys rotate`: a few hundred rows per
// transaction, rows other instances hold locked skipped and taken at the next pass, so the
// service keeps running throughout.
#include <nlohmann/json.hpp>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/database.hpp"

namespace ironhold::db {

struct ResealReport {
  long long node_credentials = 0;
  long long cloud_accounts = 0;
  long long task_secrets = 0;
  long long receiver_secrets = 0;  // alert receivers' signing secrets
  long long unreadable = 0;        // opened under none of the keys: left as they are
  long long total() const {
    return node_credentials + cloud_accounts + task_secrets + receiver_secrets;
  }
};

// One pass over every sealed value not under box.key_id(); `box` must hold the keys they are
// sealed under.
ResealReport reseal_secrets(Database& db, const crypto::SecretBox& box);

// How many sealed values are under a key other than `key_id`.
long long secrets_not_under(Database& db, const std::string& key_id);

nlohmann::json to_json(const ResealReport& report);

}  // namespace ironhold::db

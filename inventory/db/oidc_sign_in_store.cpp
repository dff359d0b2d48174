#include "inventory/db/oidc_sign_in_store.hpp"

#include "inventory/db/transaction.hpp"

namespace ironhold::db {

void OidcSignInStore::begin(const std::string& state_hash, const std::string& return_to) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params("DELETE FROM oidc_sign_ins WHERE created_at < now() - make_interval(mins => $1)",
                   kLifetimeMinutes);
    tx.exec_params("INSERT INTO oidc_sign_ins (state_hash, return_to) VALUES ($1, $2)", state_hash,
                   return_to);
  });
}

std::optional<std::string> OidcSignInStore::finish(const std::string& state_hash) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<std::string> {
    const auto row = tx.exec_params(
        "DELETE FROM oidc_sign_ins WHERE state_hash = $1 RETURNING return_to, "
        "created_at >= now() - make_interval(mins => $2)",
        state_hash, kLifetimeMinutes);
    if (row.empty() || !row[0][1].as<bool>()) return std::nullopt;
    return row[0][0].as<std::string>();
  });
}

}  // namespace ironhold::db

#pragma once
// The prices of migration 0033, kept by admins: added (a new version from its effective date),
// listed, and removed when entered by mistake. One currency for all.
#include "inventory/db/database.hpp"
#include "inventory/model/prices.hpp"

namespace ironhold::db {

class PriceStore {
 public:
  explicit PriceStore(Database& db) : db_(db) {}

  PriceList list();
  // Each throws conflict for a price of that key and effective_from already kept, or in another
  // currency than the prices kept.
  ServerPrice add(const ServerPrice& price, const std::string& actor);
  EnergyPrice add(const EnergyPrice& price, const std::string& actor);
  InstancePrice add(const InstancePrice& price, const std::string& actor);
  // The removed price as JSON (for the audit entry); not_found.
  nlohmann::json remove(PriceKind kind, long long id);

 private:
  Database& db_;
};

}  // namespace ironhold::db

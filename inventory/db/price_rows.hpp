#pragma once
// Internal to inventory/db/: every price, in one transaction's view (the cost report reads them in
// the snapshot it reads the history in).
#include <pqxx/pqxx>

#include "inventory/model/prices.hpp"

namespace ironhold::db {

PriceList read_prices(pqxx::transaction_base& tx);

}  // namespace ironhold::db

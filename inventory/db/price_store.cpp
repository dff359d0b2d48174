#include "inventory/db/price_store.hpp"

#include "inventory/db/price_rows.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"

namespace ironhold::db {
namespace price_rows {

const char* table_of(PriceKind kind) {
  switch (kind) {
    case PriceKind::server:
      return "server_prices";
    case PriceKind::energy:
      return "energy_prices";
    case PriceKind::instance:
      return "instance_prices";
  }
  return "";
}

constexpr const char* kCommon =
    "id, rfc3339(effective_from), currency, created_by, rfc3339(created_at)";

void read_common(const pqxx::row& r, PriceCommon& p) {
  p.id = r[0].as<long long>();
  p.effective_from = *parse_rfc3339(r[1].as<std::string>());
  p.currency = r[2].as<std::string>();
  p.created_by = optional_text(r[3]);
  p.created_at = r[4].as<std::string>();
}

// Prices add up only in one currency: the one kept, if any.
void check_currency(pqxx::work& tx, const std::string& currency) {
  const auto kept = tx.exec(
      "SELECT currency FROM server_prices UNION SELECT currency FROM energy_prices "
      "UNION SELECT currency FROM instance_prices LIMIT 1");
  if (!kept.empty() && kept[0][0].as<std::string>() != currency)
    throw conflict("prices are kept in " + kept[0][0].as<std::string>() +
                       ": every price must be in that currency, so that owned and rented costs "
                       "add up",
                   "currency");
}

// Adds one price: `insert(tx)` runs its INSERT ... ON CONFLICT DO NOTHING RETURNING id, and an
// existing price of `what` from the same hour is a conflict.
template <class Price, class Insert>
Price add_price(Database& db, const Price& price, const std::string& actor, const std::string& what,
                Insert insert) {
  return transact(db, [&](pqxx::work& tx) {
    // One currency at a time: two admins adding prices in different currencies at once must not
    // both pass the check.
    tx.exec("LOCK TABLE server_prices, energy_prices, instance_prices IN SHARE ROW EXCLUSIVE MODE");
    check_currency(tx, price.currency);
    const auto row = insert(tx);
    if (row.empty())
      throw conflict(what + " already has a price from " + format_rfc3339(price.effective_from) +
                         ": remove it first to enter another",
                     "effective_from");
    Price out = price;
    out.id = row[0][0].template as<long long>();
    out.created_by = actor;
    out.created_at = tx.exec("SELECT rfc3339(now())")[0][0].template as<std::string>();
    return out;
  });
}

}  // namespace price_rows

using namespace price_rows;

PriceList read_prices(pqxx::transaction_base& tx) {
  PriceList out;
  for (const auto& r : tx.exec(std::string("SELECT ") + kCommon +
                               ", model, purchase_price::float8, depreciation_months, "
                               "hosting_per_month::float8, rated_watts::float8 "
                               "FROM server_prices ORDER BY model, effective_from")) {
    ServerPrice p;
    read_common(r, p);
    p.model = r[5].as<std::string>();
    p.purchase_price = r[6].as<double>();
    p.depreciation_months = r[7].as<int>();
    p.hosting_per_month = r[8].as<double>();
    p.rated_watts = r[9].as<double>();
    out.servers.push_back(std::move(p));
  }
  for (const auto& r : tx.exec(std::string("SELECT ") + kCommon +
                               ", site, per_kwh::float8 FROM energy_prices "
                               "ORDER BY site, effective_from")) {
    EnergyPrice p;
    read_common(r, p);
    p.site = r[5].as<std::string>();
    p.per_kwh = r[6].as<double>();
    out.energy.push_back(std::move(p));
  }
  for (const auto& r : tx.exec(std::string("SELECT ") + kCommon +
                               ", provider, region, instance_type, per_hour::float8 "
                               "FROM instance_prices "
                               "ORDER BY provider, region, instance_type, effective_from")) {
    InstancePrice p;
    read_common(r, p);
    p.provider = r[5].as<std::string>();
    p.region = r[6].as<std::string>();
    p.instance_type = r[7].as<std::string>();
    p.per_hour = r[8].as<double>();
    out.instances.push_back(std::move(p));
  }
  if (!out.servers.empty()) out.currency = out.servers.front().currency;
  if (!out.currency && !out.energy.empty()) out.currency = out.energy.front().currency;
  if (!out.currency && !out.instances.empty()) out.currency = out.instances.front().currency;
  return out;
}

PriceList PriceStore::list() {
  return transact(db_, [&](pqxx::work& tx) { return read_prices(tx); });
}

ServerPrice PriceStore::add(const ServerPrice& price, const std::string& actor) {
  return add_price(db_, price, actor, "server model \"" + price.model + "\"", [&](pqxx::work& tx) {
    return tx.exec_params(
        "INSERT INTO server_prices (model, effective_from, currency, purchase_price, "
        "depreciation_months, hosting_per_month, rated_watts, created_by) "
        "VALUES ($1, $2::timestamptz, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING id",
        price.model, format_rfc3339(price.effective_from), price.currency, price.purchase_price,
        price.depreciation_months, price.hosting_per_month, price.rated_watts, actor);
  });
}

EnergyPrice PriceStore::add(const EnergyPrice& price, const std::string& actor) {
  return add_price(db_, price, actor, "site \"" + price.site + "\"", [&](pqxx::work& tx) {
    return tx.exec_params(
        "INSERT INTO energy_prices (site, effective_from, currency, per_kwh, created_by) "
        "VALUES ($1, $2::timestamptz, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING id",
        price.site, format_rfc3339(price.effective_from), price.currency, price.per_kwh, actor);
  });
}

InstancePrice PriceStore::add(const InstancePrice& price, const std::string& actor) {
  const auto what = price.provider + " " + price.instance_type + " in " + price.region;
  return add_price(db_, price, actor, what, [&](pqxx::work& tx) {
    return tx.exec_params(
        "INSERT INTO instance_prices (provider, region, instance_type, effective_from, currency, "
        "per_hour, created_by) VALUES ($1, $2, $3, $4::timestamptz, $5, $6, $7) "
        "ON CONFLICT DO NOTHING RETURNING id",
        price.provider, price.region, price.instance_type, format_rfc3339(price.effective_from),
        price.currency, price.per_hour, actor);
  });
}

nlohmann::json PriceStore::remove(PriceKind kind, long long id) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto removed =
        tx.exec_params(std::string("DELETE FROM ") + table_of(kind) +
                           " WHERE id = $1 RETURNING row_to_json(" + table_of(kind) + ".*)::text",
                       id);
    if (removed.empty())
      throw not_found("no " + std::string(to_string(kind)) + " price has id " + std::to_string(id));
    return nlohmann::json::parse(removed[0][0].as<std::string>());
  });
}

}  // namespace ironhold::db

#include "inventory/db/cost_store.hpp"

#include "inventory/db/capacity_store.hpp"
#include "inventory/db/price_rows.hpp"
#include "inventory/db/price_store.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/transaction.hpp"

namespace ironhold::db {
namespace cost_sql {

// A float8[] literal of epoch seconds, for width_bucket.
std::string epoch_array(const std::vector<SystemTime>& times) {
  std::string out = "{";
  for (const auto& t : times) {
    if (out.size() > 1) out += ',';
    out += std::to_string(
        std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
  }
  return out + "}";
}

SystemTime time_of(const pqxx::field& f) {
  return *parse_rfc3339(f.as<std::string>());
}

}  // namespace cost_sql

using namespace cost_sql;

CostReport CostStore::report(const CostQuery& q, const ProjectScope& scope) {
  const std::string from = format_rfc3339(q.from), to = format_rfc3339(q.to);
  const auto projects = scope_array(scope);
  // Versions inside the period (the snapshot the energy below is attributed to).
  const std::string versions_sql =
      std::string("WITH v AS (") + capacity_versions_sql() +
      ") SELECT v.version_id, v.id, v.name, v.source = 'bmc', v.model, v.site, v.provider, "
      "  nullif(a.region, ''), v.hardware ->> 'gpu_model', v.project, v.gpus::float8, "
      "  v.power_state = 'on', rfc3339(v.s), rfc3339(v.e), rfc3339(v.created_at) "
      "FROM v LEFT JOIN cloud_accounts a ON a.id = v.cloud_account_id WHERE v.e > v.s "
      "ORDER BY v.name, v.s";
  // Each hour's energy belongs to the version its node had when the hour began; hours are
  // summed between energy price changes ($4: their epochs), where each site's price is constant.
  const std::string energy_sql =
      "SELECT v.version_id, width_bucket(extract(epoch FROM e.hour)::float8, $4::float8[]), "
      "  rfc3339(min(e.hour)), rfc3339(max(e.hour) + interval '1 hour'), "
      "  sum(e.joules) / 3.6e6 "
      "FROM node_energy_hourly e JOIN node_versions v ON v.id = e.node_id "
      "  AND v.valid_from <= e.hour AND (v.valid_to IS NULL OR v.valid_to > e.hour) "
      "WHERE e.hour >= $1::timestamptz AND e.hour < $2::timestamptz AND v.source = 'bmc' "
      "  AND ($3::text[] IS NULL OR v.project = ANY($3::text[])) "
      "GROUP BY 1, 2";
  PriceList prices;
  std::vector<CostVersion> versions;
  std::vector<MeasuredEnergy> energy;
  transact(db_, [&](pqxx::work& tx) {
    // One snapshot for the three reads.
    tx.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
    prices = read_prices(tx);
    versions.clear();
    energy.clear();
    for (const auto& r : tx.exec_params(versions_sql, from, to, nullable(projects))) {
      CostVersion v;
      v.version_id = r[0].as<long long>();
      v.node_id = r[1].as<std::string>();
      v.node_name = r[2].as<std::string>();
      v.owned = r[3].as<bool>();
      v.model = optional_text(r[4]);
      v.site = optional_text(r[5]);
      v.provider = optional_text(r[6]);
      v.region = optional_text(r[7]);
      v.gpu_model = optional_text(r[8]);
      v.project = optional_text(r[9]);
      v.gpus = r[10].as<double>();
      v.powered_on = r[11].as<bool>();
      v.from = time_of(r[12]);
      v.to = time_of(r[13]);
      v.enrolled = time_of(r[14]);
      versions.push_back(std::move(v));
    }
    const std::string boundaries = epoch_array(energy_price_boundaries(prices));
    for (const auto& r : tx.exec_params(energy_sql, from, to, nullable(projects), boundaries)) {
      MeasuredEnergy m;
      m.version_id = r[0].as<long long>();
      m.from = time_of(r[2]);
      m.to = time_of(r[3]);
      m.kwh = r[4].as<double>();
      energy.push_back(m);
    }
  });
  return compute_cost(q, prices, versions, energy);
}

}  // namespace ironhold::db

#include "inventory/db/change_store.hpp"

#include "inventory/db/change_rows.hpp"
#include "inventory/db/transaction.hpp"

namespace ironhold::db {

std::optional<ChangePosition> ChangeStore::position_of(std::int64_t id) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<ChangePosition> {
    const auto r = tx.exec_params("SELECT xid::text FROM changes WHERE id = $1", id);
    if (r.empty()) return std::nullopt;
    return ChangePosition{r[0][0].as<std::uint64_t>(), id};
  });
}

std::vector<ChangeRow> ChangeStore::between(ChangePosition after, ChangePosition before,
                                            int limit) {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<ChangeRow> rows;
    for (const auto& r : tx.exec_params(
             std::string("SELECT ") + change_columns +
                 " FROM changes WHERE (xid, id) > ($1::xid8, $2::bigint) "
                 "  AND (xid, id) < ($3::xid8, $4::bigint) ORDER BY xid, id LIMIT $5",
             std::to_string(after.xid), after.id, std::to_string(before.xid), before.id, limit))
      rows.push_back(change_from_row(r));
    return rows;
  });
}

std::optional<ChangeRow> ChangeStore::last_before(ChangePosition before) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<ChangeRow> {
    const auto r = tx.exec_params(std::string("SELECT ") + change_columns +
                                      " FROM changes WHERE (xid, id) < ($1::xid8, $2::bigint) "
                                      "ORDER BY xid DESC, id DESC LIMIT 1",
                                  std::to_string(before.xid), before.id);
    if (r.empty()) return std::nullopt;
    return change_from_row(r[0]);
  });
}

std::uint64_t ChangeStore::watermark() {
  return transact(db_, [](pqxx::work& tx) {
    return tx.exec1("SELECT change_watermark()::text")[0].as<std::uint64_t>();
  });
}

}  // namespace ironhold::db

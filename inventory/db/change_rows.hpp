#pragma once
// Internal to inventory/db/: the columns every query of the changes table selects, and the row →
// ChangeRow mapping, shared by the store (pool) and the feed's own listening connection.
#include <pqxx/pqxx>

#include "inventory/db/change_store.hpp"

namespace ironhold::db {

inline constexpr const char* change_columns = "id, xid::text, kind, resource_id, project";

inline ChangeRow change_from_row(const pqxx::row& r) {
  ChangeRow row;
  row.position.id = r[0].as<std::int64_t>();
  row.position.xid = r[1].as<std::uint64_t>();
  row.kind = r[2].as<std::string>();
  row.resource_id = r[3].as<std::string>();
  if (!r[4].is_null()) row.project = r[4].as<std::string>();
  return row;
}

}  // namespace ironhold::db

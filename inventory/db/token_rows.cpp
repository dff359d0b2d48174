#include "inventory/db/token_rows.hpp"

#include "inventory/db/node_rows.hpp"
#include "inventory/model/enums.hpp"

namespace ironhold::db {

std::string token_columns_of(std::string_view table) {
  const std::string t(table);
  return t + ".id, " + t + ".name, " + t + ".role, " + t + ".prefix, " + t + ".created_by, " +
         "rfc3339(" + t + ".created_at), rfc3339(" + t + ".expires_at), rfc3339(" + t +
         ".last_used_at), rfc3339(" + t + ".revoked_at)";
}

TokenInfo token_from_row(const pqxx::row& r, int first) {
  TokenInfo t;
  t.id = r[first].as<std::string>();
  t.name = r[first + 1].as<std::string>();
  t.role = parse_enum<Role>(r[first + 2].c_str()).value_or(Role::viewer);
  t.prefix = r[first + 3].as<std::string>();
  t.created_by = optional_text(r[first + 4]);
  t.created_at = optional_text(r[first + 5]);
  t.expires_at = optional_text(r[first + 6]);
  t.last_used_at = optional_text(r[first + 7]);
  t.revoked_at = optional_text(r[first + 8]);
  return t;
}

}  // namespace ironhold::db

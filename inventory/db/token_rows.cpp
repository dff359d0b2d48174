#include "inventory/db/token_rows.hpp"

#include "inventory/db/node_rows.hpp"
#include "inventory/model/enums.hpp"

namespace ironhold::db {

std::string token_columns_of(std::string_view table) {
  const std::string t(table);
  return t + ".id, " + t + ".name, " + t + ".role, " + t + ".prefix, " + t + ".created_by, " +
         "rfc3339(" + t + ".created_at), rfc3339(" + t + ".expires_at), rfc3339(" + t +
         ".last_used_at), rfc3339(" + t + ".revoked_at), " + t + ".project, " + t +
         ".user_id, (SELECT u.name FROM users u WHERE u.id = " + t + ".user_id)";
}

TokenInfo token_from_row(const pqxx::row& r, int first) {
  TokenInfo t;
  t.id = r[first].as<std::string>();
  t.name = r[first + 1].as<std::string>();
  if (!r[first + 2].is_null()) t.role = parse_enum<Role>(r[first + 2].c_str());
  t.prefix = r[first + 3].as<std::string>();
  t.created_by = optional_text(r[first + 4]);
  t.created_at = optional_text(r[first + 5]);
  t.expires_at = optional_text(r[first + 6]);
  t.last_used_at = optional_text(r[first + 7]);
  t.revoked_at = optional_text(r[first + 8]);
  t.project = optional_text(r[first + 9]);
  t.user_id = optional_text(r[first + 10]);
  t.user_name = optional_text(r[first + 11]);
  return t;
}

}  // namespace ironhold::db

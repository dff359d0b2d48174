#pragma once
// Reading api_tokens rows, shared by the token store and the console sessions (which read the
// session's token in the same query).
#include <pqxx/pqxx>
#include <string>
#include <string_view>

#include "inventory/db/token_store.hpp"

namespace ironhold::db {

// The columns token_from_row reads, qualified by `table` (a table name or alias).
std::string token_columns_of(std::string_view table);
// A token from those columns, starting at column `first`.
TokenInfo token_from_row(const pqxx::row& r, int first = 0);

}  // namespace ironhold::db

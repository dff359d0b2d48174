#pragma once
// Internal to inventory/db/: turns a NodeFilter and NodeSort into SQL with numbered parameters.
#include <string>
#include <vector>

#include "inventory/model/node_query.hpp"

namespace ironhold::db {

struct SqlParams {
  std::vector<std::string> values;
  // Appends a value and returns its placeholder ("$3").
  std::string add(std::string value) {
    values.push_back(std::move(value));
    std::string placeholder = "$";
    placeholder += std::to_string(values.size());
    return placeholder;
  }
};

// Appends " AND column IN ($n, ...)" unless values is empty.
void add_in_list(std::string& where, const char* column, const std::vector<std::string>& values,
                 SqlParams& params);

// "n.retired_at IS NULL AND n.health IN ($1,$2) AND ..." (never empty: "TRUE" at least).
std::string node_where(const NodeFilter& filter, SqlParams& params);

struct SortSql {
  std::string expression;  // what ORDER BY uses, e.g. n.name COLLATE "C"
  std::string key_output;  // the key as text, stored in the cursor
  std::string key_cast;    // how a cursor key is cast back, e.g. ::timestamptz
};
SortSql sort_sql(NodeSortField field);

}  // namespace ironhold::db

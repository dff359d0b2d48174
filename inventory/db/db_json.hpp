#pragma once
// Internal to inventory/db/: JSON text PostgreSQL accepts from whatever a BMC sent. jsonb refuses
// "\u0000" and nlohmann::json refuses to dump invalid UTF-8; both become U+FFFD here instead of
// an error that would lose the whole poll result.
#include <nlohmann/json.hpp>
#include <string>

namespace ironhold::db {

std::string db_json(nlohmann::json value);

// Text for a text column: NUL bytes (which libpq would cut the value at) become U+FFFD.
std::string db_text(std::string_view text);

}  // namespace ironhold::db

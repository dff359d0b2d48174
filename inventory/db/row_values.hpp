#pragma once
// Internal to inventory/db/: nullable text on its way into and out of PostgreSQL, one spelling for
// every store.
#include <nlohmann/json.hpp>
#include <optional>
#include <pqxx/pqxx>
#include <string>

namespace ironhold::db {

// A nullable text parameter for exec_params.
inline const char* nullable(const std::optional<std::string>& v) {
  return v ? v->c_str() : nullptr;
}

// A nullable column as text.
inline std::optional<std::string> optional_text(const pqxx::field& f) {
  return f.is_null() ? std::nullopt : std::optional<std::string>(f.as<std::string>());
}

// A nullable value as JSON (null when absent), for event details and audit parameters.
inline nlohmann::json json_or_null(const std::optional<std::string>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace ironhold::db

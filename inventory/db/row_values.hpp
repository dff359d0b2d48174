#pragma once
// Internal to inventory/db/: nullable text on its way into and out of PostgreSQL, one spelling for
// every store.
#include <nlohmann/json.hpp>
#include <optional>
#include <pqxx/pqxx>
#include <span>
#include <string>
#include <vector>

#include "inventory/model/access.hpp"

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

// A text[] literal (each element quoted), for "= ANY($n::text[])".
inline std::string text_array(std::span<const std::string> values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

// A project scope as a text[] parameter: null for every project. Queries filter with
// "($n::text[] IS NULL OR x.project = ANY($n::text[]))".
inline std::optional<std::string> scope_array(const ProjectScope& scope) {
  if (!scope) return std::nullopt;
  return text_array(*scope);
}

}  // namespace ironhold::db

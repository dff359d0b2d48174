#pragma once
// Small builders the OpenAPI schema files share.
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

namespace ironhold::web::openapi {

inline nlohmann::json string_enum(std::span<const std::string_view> names) {
  nlohmann::json values = nlohmann::json::array();
  for (auto n : names) values.push_back(n);
  return {{"type", "string"}, {"enum", values}};
}

inline nlohmann::json nullable(const char* type) {
  return {{"type", nlohmann::json::array({type, "null"})}};
}

}  // namespace ironhold::web::openapi

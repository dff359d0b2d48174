#pragma once
// Reading fields of a provider's JSON without trusting its types: nlohmann's value() throws when a
// field has another type than expected, and a cloud's answer is external input.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ironhold::cloudapi::openstack {

// The string at `key` of an object, else nullopt (absent, null, another type, not an object).
inline std::optional<std::string> string_field(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

inline std::string string_or(const nlohmann::json& object, const char* key, std::string fallback) {
  return string_field(object, key).value_or(std::move(fallback));
}

// An integer at `key`; numbers in strings ("8") are not accepted here.
inline std::optional<long long> integer_field(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<long long>();
  if (it->is_number_float()) return static_cast<long long>(it->get<double>());
  return std::nullopt;
}

// The object at `key`, or a null json when absent or not an object.
inline const nlohmann::json& object_field(const nlohmann::json& object, const char* key) {
  static const nlohmann::json none;
  if (!object.is_object()) return none;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_object()) return none;
  return *it;
}

}  // namespace ironhold::cloudapi::openstack

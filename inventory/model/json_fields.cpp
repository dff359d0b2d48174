#include "inventory/model/json_fields.hpp"

#include <algorithm>
#include <cctype>

#include "inventory/model/access.hpp"
#include "inventory/model/node.hpp"

namespace ironhold {

const char* json_type_name(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return "a number";
    default:
      return "an unsupported value";
  }
}

Error wrong_type(const std::string& field, const char* expected, const nlohmann::json& got) {
  return invalid("\"" + field + "\" must be " + expected + ", not " + json_type_name(got), field);
}

std::string required_string(const nlohmann::json& body, const char* field) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null())
    throw invalid(std::string("\"") + field + "\" is required", field);
  if (!it->is_string()) throw wrong_type(field, "a string", *it);
  return it->get<std::string>();
}

std::optional<std::string> optional_string(const nlohmann::json& obj, const std::string& key,
                                           const std::string& field, std::size_t max_length) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw wrong_type(field, "a string", *it);
  auto value = it->get<std::string>();
  if (value.size() > max_length)
    throw unprocessable(
        "\"" + field + "\" is longer than " + std::to_string(max_length) + " characters", field);
  return value;
}

std::string project_field(const nlohmann::json& body) {
  const auto project = optional_string(body, "project", "project", 63);
  if (!project) return "default";
  if (!valid_project_name(*project))
    throw unprocessable(
        "\"" + *project + "\" is not a project name (lower-case letters, digits, '.', '_', '-')",
        "project");
  return *project;
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 63 || !std::isalnum(static_cast<unsigned char>(name[0])))
    return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-';
  });
}

void reject_unknown_keys(const nlohmann::json& obj, std::initializer_list<std::string_view> allowed,
                         const std::string& where, ErrorKind kind) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      const std::string field = where.empty() ? key : where + "." + key;
      throw Error(kind, "unknown field \"" + field + "\" (known: " + list + ")", field);
    }
  }
}

void check_resource_name(const std::string& name, std::string_view noun) {
  if (!valid_name(name))
    throw unprocessable(
        "\"name\" must be 1 to 63 letters, digits, '.', '_' or '-', starting "
        "with a letter or digit (got \"" +
            name.substr(0, 80) + "\")",
        "name");
  if (is_uuid(name))
    throw unprocessable(
        "\"name\" must not look like a UUID: " + std::string(noun) + " routes take an id or a name",
        "name");
}

}  // namespace ironhold

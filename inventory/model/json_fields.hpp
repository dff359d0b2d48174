#pragma once
// Reading fields of a JSON request body with errors a person can act on: wrong types are
// ErrorKind::invalid naming the field, unknown keys are refused with the list of known ones.
// Shared by every spec parser (nodes, cloud accounts).
#include <cstddef>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "inventory/error.hpp"

namespace ironhold {

// "a string", "a number", ...: for messages.
const char* json_type_name(const nlohmann::json& v);
Error wrong_type(const std::string& field, const char* expected, const nlohmann::json& got);
// The string `field` of `body`; invalid when missing, null or not a string.
std::string required_string(const nlohmann::json& body, const char* field);
// obj[key] when present and not null; `field` names it in errors; longer than max_length is
// unprocessable.
std::optional<std::string> optional_string(const nlohmann::json& obj, const std::string& key,
                                           const std::string& field, std::size_t max_length);
// ^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$: the rule for node and account names.
bool valid_name(const std::string& name);
// Throws unprocessable (field "name") unless `name` follows valid_name and is not UUID-shaped
// (routes take an id or a name); `noun` names the routes in the message ("node", "account").
void check_resource_name(const std::string& name, std::string_view noun);
// body["project"]: a project name (valid_project_name), "default" when absent or null.
std::string project_field(const nlohmann::json& body);
// Refuses a key of `obj` not in `allowed`; `where` prefixes the field name ("location").
void reject_unknown_keys(const nlohmann::json& obj, std::initializer_list<std::string_view> allowed,
                         const std::string& where, ErrorKind kind);

}  // namespace ironhold
